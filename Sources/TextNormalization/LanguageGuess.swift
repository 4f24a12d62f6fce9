public import SafetyCore

/// A cheap guess at whether a prompt is English or Turkish, from letters, function words and
/// Turkish suffixes. It only has to tell the two apart (and admit when it cannot), not identify
/// every language.
public enum LanguageGuess {
    /// Guesses the language of `text`.
    public static func guess(_ text: String) -> Language {
        Array(text.utf8).withUnsafeBufferPointer { guess(units: UTF8Encoding.decode($0).units) }
    }

    static func guess(units raw: Units) -> Language {
        var turkish = 0
        var english = 0
        var word: [UInt8] = []
        word.reserveCapacity(32)

        func finishWord() {
            guard !word.isEmpty else { return }
            defer { word.removeAll(keepingCapacity: true) }
            let w = String(decoding: word, as: UTF8.self)
            if turkishWords.contains(w) { turkish += 2 }
            if englishWords.contains(w) { english += 2 }
            if word.count >= 5, turkishSuffixes.contains(where: { w.hasSuffix($0) }) { turkish += 2 }
        }

        for s in raw.scalars {
            switch s {
            case 0x41...0x5A: word.append(UInt8(s | 0x20))
            case 0x61...0x7A, 0x27: word.append(UInt8(s))
            // ğ Ğ ş Ş ı İ: found in Turkish and hardly anywhere else.
            case 0x11E, 0x11F, 0x15E, 0x15F, 0x130, 0x131:
                turkish += 3
                word.append(contentsOf: turkishLetterFold[s] ?? [])
            // ç Ç ö Ö ü Ü: Turkish, but also German, French…
            case 0xE7, 0xC7, 0xF6, 0xD6, 0xFC, 0xDC:
                turkish += 1
                word.append(contentsOf: turkishLetterFold[s] ?? [])
            default:
                finishWord()
            }
        }
        finishWord()
        if turkish == 0 && english == 0 { return .und }
        if turkish > english { return .tr }
        if english > turkish { return .en }
        return .und
    }

    /// Turkish letters folded to ASCII so that "için" and "icin" are the same word.
    static let turkishLetterFold: [UInt32: [UInt8]] = [
        0x11E: [0x67], 0x11F: [0x67], 0x15E: [0x73], 0x15F: [0x73], 0x130: [0x69], 0x131: [0x69],
        0xE7: [0x63], 0xC7: [0x63], 0xF6: [0x6F], 0xD6: [0x6F], 0xFC: [0x75], 0xDC: [0x75],
    ]

    /// Turkish function words and very common words, without Turkish letters.
    static let turkishWords: Set<String> = [
        "ve", "bir", "bu", "su", "ne", "icin", "ile", "ama", "cok", "daha", "gibi", "ben", "sen", "biz",
        "siz", "onlar", "mi", "mu", "degil", "var", "yok", "nasil", "neden", "niye", "kendimi", "kendini",
        "istiyorum", "istemiyorum", "artik", "hic", "her", "sey", "bana", "beni", "benim", "seni", "sana",
        "lutfen", "yarin", "bugun", "simdi", "bence", "evet", "hayir", "tamam", "merhaba", "selam",
        "tesekkurler", "tesekkur", "ederim", "olarak", "oldu", "olur", "olsun", "diye", "kadar", "sonra",
        "once", "icinde", "hem", "ya", "da", "de", "ki", "mi", "misin", "miyim", "yani", "bile", "hep",
        "nasilsin", "abi", "kanka", "lan", "ya", "gece", "sabah", "aksam", "hafta", "toplanti", "olmek",
        "yasamak", "intihar", "nerede", "kim", "hangi", "neler", "bunu", "sunu", "onu", "onun", "benden",
        "sensiz", "bensiz", "herkes", "hicbir", "birisi", "birini", "biri", "yapilir", "nasil", "icin",
    ]

    /// English function words and very common words.
    static let englishWords: Set<String> = [
        "the", "and", "to", "of", "a", "i", "you", "is", "are", "my", "me", "how", "what", "want", "do",
        "can", "please", "it", "in", "for", "this", "that", "with", "be", "not", "don't", "i'm", "im",
        "myself", "tonight", "at", "on", "an", "was", "have", "has", "will", "would", "should", "could",
        "your", "we", "they", "he", "she", "him", "her", "them", "about", "from", "just", "like", "get",
        "why", "when", "where", "who", "which", "write", "make", "tell", "give", "help", "know", "there",
        "all", "no", "yes", "so", "if", "or", "but", "out", "up", "some", "any", "more", "really",
        "anymore", "going", "gonna", "wanna", "everyone", "someone", "people", "hi", "hello", "thanks",
        "meeting", "schedule", "tomorrow", "today", "week", "can't", "it's", "i'll", "i've", "don't",
    ]

    /// Endings of Turkish verb and noun forms (without Turkish letters).
    static let turkishSuffixes: [String] = [
        "iyorum", "iyor", "uyorum", "uyor", "yorum", "ecegim", "acagim", "ecek", "acak", "mak", "mek",
        "miyorum", "mayacagim", "meyecegim", "meliyim", "maliyim", "dim", "dum", "tim", "tum",
        "sinda", "sinde", "larini", "lerini", "lari", "leri", "lerim", "larim", "imiz", "umuz",
        "iyoruz", "yoruz", "misin", "misiniz", "isin", "abilir", "ebilir", "abilirim", "ebilirim",
    ]
}
