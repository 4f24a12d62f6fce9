#ifndef SAFEGATE_CPCRE2_SHIM_H
#define SAFEGATE_CPCRE2_SHIM_H

/* PCRE2 is used in its 8-bit (UTF-8) flavour only. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

/* Values that pcre2.h defines as macros with casts or through PCRE2_SUFFIX,
   which Swift's importer cannot see. */
static const size_t sg_pcre2_zero_terminated = PCRE2_ZERO_TERMINATED;
static const size_t sg_pcre2_unset = PCRE2_UNSET;

static inline int sg_pcre2_is_unset(size_t value) { return value == PCRE2_UNSET; }

#endif
