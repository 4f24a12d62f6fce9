#include "CICUShim.h"

#include <stdio.h>
#include <unicode/uchar.h>
#include <unicode/uclean.h>
#include <unicode/unorm2.h>
#include <unicode/uscript.h>
#include <unicode/uset.h>
#include <unicode/uspoof.h>
#include <unicode/ustring.h>
#include <unicode/utrans.h>
#include <unicode/uversion.h>

_Static_assert(sizeof(UChar) == sizeof(uint16_t), "UChar must be 16 bits");
_Static_assert(SGICU_BUFFER_OVERFLOW == U_BUFFER_OVERFLOW_ERROR, "overflow code");

static const UNormalizer2 *normalizer(sgicu_form form, UErrorCode *status) {
    switch (form) {
    case SGICU_NFC: return unorm2_getNFCInstance(status);
    case SGICU_NFD: return unorm2_getNFDInstance(status);
    case SGICU_NFKC: return unorm2_getNFKCInstance(status);
    case SGICU_NFKD: return unorm2_getNFKDInstance(status);
    case SGICU_NFKC_CASEFOLD: return unorm2_getNFKCCasefoldInstance(status);
    }
    *status = U_ILLEGAL_ARGUMENT_ERROR;
    return NULL;
}

int32_t sgicu_normalize(sgicu_form form, const uint16_t *src, int32_t srcLength,
                        uint16_t *dest, int32_t destCapacity, int32_t *status) {
    UErrorCode code = U_ZERO_ERROR;
    const UNormalizer2 *n = normalizer(form, &code);
    int32_t length = 0;
    if (U_SUCCESS(code)) {
        length = unorm2_normalize(n, (const UChar *)src, srcLength, (UChar *)dest, destCapacity, &code);
    }
    *status = code;
    return length;
}

int32_t sgicu_has_boundary_before(sgicu_form form, uint32_t c, int32_t *status) {
    UErrorCode code = U_ZERO_ERROR;
    const UNormalizer2 *n = normalizer(form, &code);
    int32_t result = 0;
    if (U_SUCCESS(code)) {
        result = unorm2_hasBoundaryBefore(n, (UChar32)c) ? 1 : 0;
    }
    *status = code;
    return result;
}

int32_t sgicu_fold_case(int32_t turkic, const uint16_t *src, int32_t srcLength,
                        uint16_t *dest, int32_t destCapacity, int32_t *status) {
    UErrorCode code = U_ZERO_ERROR;
    uint32_t options = turkic ? U_FOLD_CASE_EXCLUDE_SPECIAL_I : U_FOLD_CASE_DEFAULT;
    int32_t length = u_strFoldCase((UChar *)dest, destCapacity, (const UChar *)src, srcLength, options, &code);
    *status = code;
    return length;
}

int32_t sgicu_has_property(uint32_t c, sgicu_property property) {
    switch (property) {
    case SGICU_PROP_DEFAULT_IGNORABLE: return u_hasBinaryProperty((UChar32)c, UCHAR_DEFAULT_IGNORABLE_CODE_POINT);
    case SGICU_PROP_EXTENDED_PICTOGRAPHIC: return u_hasBinaryProperty((UChar32)c, UCHAR_EXTENDED_PICTOGRAPHIC);
    case SGICU_PROP_ALPHABETIC: return u_hasBinaryProperty((UChar32)c, UCHAR_ALPHABETIC);
    case SGICU_PROP_EMOJI_MODIFIER: return u_hasBinaryProperty((UChar32)c, UCHAR_EMOJI_MODIFIER);
    case SGICU_PROP_VARIATION_SELECTOR: return u_hasBinaryProperty((UChar32)c, UCHAR_VARIATION_SELECTOR);
    }
    return 0;
}

int32_t sgicu_script(uint32_t c, int32_t *status) {
    UErrorCode code = U_ZERO_ERROR;
    UScriptCode script = uscript_getScript((UChar32)c, &code);
    *status = code;
    return (int32_t)script;
}

int32_t sgicu_char_type(uint32_t c) { return (int32_t)u_charType((UChar32)c); }

sgicu_spoof *sgicu_spoof_open(int32_t *status) {
    UErrorCode code = U_ZERO_ERROR;
    USpoofChecker *checker = uspoof_open(&code);
    *status = code;
    if (U_FAILURE(code)) {
        if (checker) uspoof_close(checker);
        return NULL;
    }
    return (sgicu_spoof *)checker;
}

void sgicu_spoof_close(sgicu_spoof *checker) {
    if (checker) uspoof_close((USpoofChecker *)checker);
}

int32_t sgicu_spoof_skeleton(const sgicu_spoof *checker, const uint16_t *src, int32_t srcLength,
                             uint16_t *dest, int32_t destCapacity, int32_t *status) {
    UErrorCode code = U_ZERO_ERROR;
    int32_t length = uspoof_getSkeleton((const USpoofChecker *)checker, 0, (const UChar *)src, srcLength,
                                        (UChar *)dest, destCapacity, &code);
    *status = code;
    return length;
}

sgicu_transliterator *sgicu_translit_open(const uint16_t *id, int32_t idLength, int32_t *status) {
    UErrorCode code = U_ZERO_ERROR;
    UTransliterator *t = utrans_openU((const UChar *)id, idLength, UTRANS_FORWARD, NULL, 0, NULL, &code);
    *status = code;
    if (U_FAILURE(code)) {
        if (t) utrans_close(t);
        return NULL;
    }
    return (sgicu_transliterator *)t;
}

void sgicu_translit_close(sgicu_transliterator *transliterator) {
    if (transliterator) utrans_close((UTransliterator *)transliterator);
}

int32_t sgicu_translit(const sgicu_transliterator *transliterator, uint16_t *text, int32_t length,
                       int32_t capacity, int32_t *status) {
    UErrorCode code = U_ZERO_ERROR;
    int32_t textLength = length;
    int32_t limit = length;
    utrans_transUChars((const UTransliterator *)transliterator, (UChar *)text, &textLength, capacity, 0, &limit,
                       &code);
    *status = code;
    return textLength;
}

static int32_t copy_ranges(const USet *set, uint32_t *pairs, int32_t pairCapacity, int32_t *status) {
    UErrorCode code = U_ZERO_ERROR;
    int32_t count = uset_getRangeCount(set);
    if (count > pairCapacity) {
        *status = U_BUFFER_OVERFLOW_ERROR;
        return count;
    }
    for (int32_t i = 0; i < count; i++) {
        UChar32 start = 0, end = 0;
        /* Ranges come first in a USet's items; strings (none here) come after. */
        uset_getItem(set, i, &start, &end, NULL, 0, &code);
        if (U_FAILURE(code)) break;
        pairs[2 * i] = (uint32_t)start;
        pairs[2 * i + 1] = (uint32_t)end;
    }
    *status = code;
    return count;
}

int32_t sgicu_translit_source_ranges(const sgicu_transliterator *transliterator, uint32_t *pairs,
                                     int32_t pairCapacity, int32_t *status) {
    UErrorCode code = U_ZERO_ERROR;
    USet *set = uset_openEmpty();
    utrans_getSourceSet((const UTransliterator *)transliterator, 0, set, &code);
    int32_t count = 0;
    if (U_SUCCESS(code)) {
        count = copy_ranges(set, pairs, pairCapacity, status);
    } else {
        *status = code;
    }
    uset_close(set);
    return count;
}

int32_t sgicu_set_ranges(const uint16_t *pattern, int32_t patternLength, uint32_t *pairs,
                         int32_t pairCapacity, int32_t *status) {
    UErrorCode code = U_ZERO_ERROR;
    USet *set = uset_openPattern((const UChar *)pattern, patternLength, &code);
    int32_t count = 0;
    if (U_SUCCESS(code)) {
        count = copy_ranges(set, pairs, pairCapacity, status);
    } else {
        *status = code;
    }
    if (set) uset_close(set);
    return count;
}

const char *sgicu_error_name(int32_t status) {
    const char *name = u_errorName((UErrorCode)status);
    return name ? name : "unknown ICU error";
}

const char *sgicu_version(void) {
    static char buffer[U_MAX_VERSION_STRING_LENGTH];
    UVersionInfo info;
    u_getVersion(info);
    u_versionToString(info, buffer);
    return buffer;
}
