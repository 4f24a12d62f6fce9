#ifndef SAFEGATE_CPCRE2_SHIM_H
#define SAFEGATE_CPCRE2_SHIM_H

/* PCRE2 is used in its 8-bit (UTF-8) flavour only. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdint.h>
#include <time.h>

/* Values that pcre2.h defines as macros with casts or through PCRE2_SUFFIX,
   which Swift's importer cannot see. */
static const size_t sg_pcre2_zero_terminated = PCRE2_ZERO_TERMINATED;
static const size_t sg_pcre2_unset = PCRE2_UNSET;

static inline int sg_pcre2_is_unset(size_t value) { return value == PCRE2_UNSET; }

/* Sets the offset limit of a match context (a match must start at or before `limit`), or clears
   it when `limit` is negative. Patterns must be compiled with PCRE2_USE_OFFSET_LIMIT. */
static inline void sg_pcre2_set_offset_limit(pcre2_match_context_8 *context, long limit) {
    pcre2_set_offset_limit_8(context, limit < 0 ? PCRE2_UNSET : (PCRE2_SIZE)limit);
}

/* A wall-clock deadline for one pcre2_match call on a pattern compiled with PCRE2_AUTO_CALLOUT.
   PCRE2's match limit counts per start position, and one unit can scan the whole subject, so on a
   long subject a single call can run for seconds; the callout below is called before every item
   of the pattern, looks at the clock every 32 calls, and abandons the match with
   PCRE2_ERROR_CALLOUT once the deadline has passed. */
typedef struct sg_pcre2_deadline {
    uint64_t deadline_ns; /* CLOCK_MONOTONIC nanoseconds; 0 means none */
    uint64_t calls;
    int expired;
} sg_pcre2_deadline;

static inline uint64_t sg_monotonic_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

static inline int sg_pcre2_deadline_callout(pcre2_callout_block_8 *block, void *data) {
    (void)block;
    sg_pcre2_deadline *state = (sg_pcre2_deadline *)data;
    state->calls += 1;
    if (state->deadline_ns != 0 && (state->calls & 31u) == 0 && sg_monotonic_ns() > state->deadline_ns) {
        state->expired = 1;
        return PCRE2_ERROR_CALLOUT;
    }
    return 0;
}

/* Makes every callout of matches run with `context` check `state`'s deadline. */
static inline int sg_pcre2_install_deadline(pcre2_match_context_8 *context, sg_pcre2_deadline *state) {
    return pcre2_set_callout_8(context, sg_pcre2_deadline_callout, state);
}

#endif
