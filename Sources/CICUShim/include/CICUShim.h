#ifndef SAFEGATE_CICUSHIM_H
#define SAFEGATE_CICUSHIM_H

/*
 * A thin bridge to ICU. It includes ICU only in its implementation file and exports
 * its own prefixed functions, so no ICU header ever reaches a Swift module (next to
 * Foundation, whose bundled ICU module clashes with the system headers).
 *
 * Conventions: text is UTF-16 (ICU's native form). Every function that fills a buffer
 * returns the length it needs and writes an ICU error code to *status (0 = success,
 * negative = warning, positive = failure). A too-small buffer gives status
 * SGICU_BUFFER_OVERFLOW and the required length; the caller retries at that size.
 * Nothing is ever silently truncated.
 */

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { SGICU_BUFFER_OVERFLOW = 15 };

/* Normalisation forms. */
typedef enum {
    SGICU_NFC = 0,
    SGICU_NFD = 1,
    SGICU_NFKC = 2,
    SGICU_NFKD = 3,
    SGICU_NFKC_CASEFOLD = 4
} sgicu_form;

int32_t sgicu_normalize(sgicu_form form, const uint16_t *src, int32_t srcLength,
                        uint16_t *dest, int32_t destCapacity, int32_t *status);

/* 1 when the form has a normalisation boundary before c (text can be split there). */
int32_t sgicu_has_boundary_before(sgicu_form form, uint32_t c, int32_t *status);

/* Full case folding; turkic != 0 uses the Turkic rules (I -> dotless i, dotted I -> i). */
int32_t sgicu_fold_case(int32_t turkic, const uint16_t *src, int32_t srcLength,
                        uint16_t *dest, int32_t destCapacity, int32_t *status);

/* Character properties. */
typedef enum {
    SGICU_PROP_DEFAULT_IGNORABLE = 0,
    SGICU_PROP_EXTENDED_PICTOGRAPHIC = 1,
    SGICU_PROP_ALPHABETIC = 2,
    SGICU_PROP_EMOJI_MODIFIER = 3,
    SGICU_PROP_VARIATION_SELECTOR = 4
} sgicu_property;

int32_t sgicu_has_property(uint32_t c, sgicu_property property);
/* The ICU UScriptCode of c (0 = Common, 1 = Inherited, 25 = Latin, 8 = Cyrillic, 14 = Greek). */
int32_t sgicu_script(uint32_t c, int32_t *status);
/* The ICU UCharCategory of c (6 = non-spacing mark). */
int32_t sgicu_char_type(uint32_t c);

/* UTS #39 confusable skeleton. The checker is opaque and owned by the caller. */
typedef struct sgicu_spoof sgicu_spoof;
sgicu_spoof *sgicu_spoof_open(int32_t *status);
void sgicu_spoof_close(sgicu_spoof *checker);
int32_t sgicu_spoof_skeleton(const sgicu_spoof *checker, const uint16_t *src, int32_t srcLength,
                             uint16_t *dest, int32_t destCapacity, int32_t *status);

/* Transliteration, for deriving tables (never per prompt: it is slow and takes a global lock). */
typedef struct sgicu_transliterator sgicu_transliterator;
sgicu_transliterator *sgicu_translit_open(const uint16_t *id, int32_t idLength, int32_t *status);
void sgicu_translit_close(sgicu_transliterator *transliterator);
/* Transliterates text[0..<length] in place; returns the new length (may need capacity > length). */
int32_t sgicu_translit(const sgicu_transliterator *transliterator, uint16_t *text, int32_t length,
                       int32_t capacity, int32_t *status);
/* Code point ranges the transliterator may change, as pairs (first, last). Returns the pair count. */
int32_t sgicu_translit_source_ranges(const sgicu_transliterator *transliterator, uint32_t *pairs,
                                     int32_t pairCapacity, int32_t *status);

/* Code point ranges of a UnicodeSet pattern such as "[:L:]", as pairs (first, last). */
int32_t sgicu_set_ranges(const uint16_t *pattern, int32_t patternLength, uint32_t *pairs,
                         int32_t pairCapacity, int32_t *status);

/* ICU's name for an error code, e.g. "U_BUFFER_OVERFLOW_ERROR". Never NULL. */
const char *sgicu_error_name(int32_t status);
/* The ICU version, e.g. "72.1". */
const char *sgicu_version(void);

#ifdef __cplusplus
}
#endif
#endif
