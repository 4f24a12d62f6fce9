public import SafetyCore

/// A cheap guess at whether a prompt is English or Turkish, from letters, function words and
/// Turkish suffixes. It only has to tell the two apart (and admit when it cannot), not identify
/// every language.
public enum LanguageGuess {
    /// Guesses the language of `text`.
    public static func guess(_ text: String) -> Language {
        NormalizedText(text).language
    }

    /// Evidence for each language.
    struct Score {
        var turkishLetters = 0
        var turkishWords = 0
        var englishWords = 0

        /// Letters from one view, words from another (a later view sees through evasions).
        func combined(wordsFrom other: Score) -> Score {
            Score(turkishLetters: turkishLetters, turkishWords: other.turkishWords, englishWords: other.englishWords)
        }

        var language: Language {
            let turkish = turkishLetters + turkishWords
            if turkish == 0 && englishWords == 0 { return .und }
            if turkish > englishWords { return .tr }
            if englishWords > turkish { return .en }
            return .und
        }
    }

    static func guess(units: Units) -> Language { score(units).language }

    static func score(_ units: Units) -> Score {
        units.scalars.withUnsafeBufferPointer { score(text: $0) }
    }

    /// The score of pure-ASCII bytes: the same as that of their units, without building them.
    static func score(ascii bytes: UnsafeBufferPointer<UInt8>) -> Score { score(text: bytes) }

    /// The score of `text`, scalars or (for ASCII) bytes: one implementation, specialised for each.
    ///
    /// A word is read as a key of 5 bits per letter (`WordTable.code`), the last letter lowest, so
    /// that the word lists are looked up without hashing the letters one by one (a multiply per
    /// byte was most of the cost), and a suffix is read off the key's low bits. Words of up to 12
    /// letters fit whole; a longer word keeps its last 12 letters, enough for every suffix, and is
    /// in no list.
    @inline(__always)
    private static func score<Element: FixedWidthInteger & UnsignedInteger>(text: UnsafeBufferPointer<Element>) -> Score {
        var score = Score()
        let table = wordTable
        asciiWordCodes.withUnsafeBufferPointer { asciiWordCodes in
            /// The code of the letter `text[i]` adds to a word, ASCII-folded, or 0 where it ends one.
            @inline(__always)
            func wordCode(_ i: Int) -> UInt64 {
                // Bytes are ASCII (`score(ascii:)`); the table reads any other byte as a separator.
                if Element.bitWidth == 8 { return UInt64(asciiWordCodes[Int(truncatingIfNeeded: text[i])]) }
                let s = UInt32(truncatingIfNeeded: text[i])
                if s < 0x80 { return UInt64(asciiWordCodes[Int(s)]) }
                switch s {
                // ğ Ğ ş Ş ı İ: found in Turkish and hardly anywhere else.
                case 0x11E, 0x11F, 0x15E, 0x15F, 0x130, 0x131:
                    score.turkishLetters += 3
                    return UInt64(WordTable.code(turkishLetterFold(s)))
                // ç Ç ö Ö ü Ü: Turkish, but also German, French…
                case 0xE7, 0xC7, 0xF6, 0xD6, 0xFC, 0xDC:
                    score.turkishLetters += 1
                    return UInt64(WordTable.code(turkishLetterFold(s)))
                default:
                    return 0
                }
            }
            let n = text.count
            var i = 0
            while i < n {
                var code = wordCode(i)
                i &+= 1
                guard code != 0 else { continue }
                var length = 0
                var key: UInt64 = 0
                repeat {
                    key = key &<< 5 | code
                    length &+= 1
                    guard i < n else { break }
                    code = wordCode(i)
                    i &+= 1
                } while code != 0
                // Words over 32 letters are not words (a pasted hash, a run of letters).
                guard length <= 32 else { continue }
                if length <= WordTable.keyLetters {
                    let flags = table.flags(of: key)
                    if flags & WordTable.turkishWord != 0 { score.turkishWords += 2 }
                    if flags & WordTable.englishWord != 0 { score.englishWords += 2 }
                }
                if length >= 5 && table.endsWithSuffix(key: key, length: length) {
                    score.turkishWords += 2
                }
            }
        }
        return score
    }

    /// For each ASCII byte, the code of the letter it adds to a word (capitals as small letters,
    /// `'` kept), or 0 where it ends one; 0 for every byte from 0x80.
    static let asciiWordCodes: [UInt8] = (0..<256).map { byte in
        switch byte {
        case 0x41...0x5A: WordTable.code(UInt8(byte | 0x20))
        case 0x61...0x7A, 0x27: WordTable.code(UInt8(byte))
        default: 0
        }
    }

    /// The word lists as one open-addressing table keyed by the words' letter codes, with flags.
    struct WordTable: Sendable {
        static let turkishWord: UInt8 = 1
        static let englishWord: UInt8 = 2
        /// Letters a key holds: 5 bits each in 60 of its 64 bits.
        static let keyLetters = 12

        /// The 5-bit code of a small ASCII letter (1–26) or `'` (27); never 0.
        @inline(__always)
        static func code(_ byte: UInt8) -> UInt8 { byte == 0x27 ? 27 : byte & 31 }

        /// The key of a word: its letters' codes, the last in the low bits (nil when it is longer
        /// than `keyLetters` or holds another character).
        static func key(_ word: String) -> UInt64? {
            guard word.utf8.count <= keyLetters else { return nil }
            var key: UInt64 = 0
            for byte in word.utf8 {
                guard (0x61...0x7A).contains(byte) || byte == 0x27 else { return nil }
                key = key << 5 | UInt64(code(byte))
            }
            return key
        }

        /// Open addressing: each slot a word's key shifted left by three, its flags in the low
        /// three bits, 0 when empty; one load per probe instead of a key and a value from two arrays.
        private let slots: [UInt64]
        private let mask: Int
        /// The suffixes as a trie of their reversed letters: `suffixNext[node * 32 + code]` is the
        /// next node (0: none), `suffixEnds[node]` whether a suffix ends there. A word is walked
        /// from its last letter until the trie has no branch.
        private let suffixNext: [Int16]
        private let suffixEnds: [Bool]

        init(turkish: some Sequence<String>, english: some Sequence<String>, suffixes: [String]) {
            var entries: [UInt64: UInt8] = [:]
            func add(_ words: some Sequence<String>, _ flag: UInt8) {
                for word in words {
                    guard let key = Self.key(word) else { preconditionFailure("not a listable word: \(word)") }
                    entries[key, default: 0] |= flag
                }
            }
            add(turkish, Self.turkishWord)
            add(english, Self.englishWord)
            var capacity = 16
            while capacity < entries.count * 4 { capacity *= 2 }
            var slots = [UInt64](repeating: 0, count: capacity)
            for (key, flags) in entries {
                var slot = Self.slot(key, mask: capacity - 1)
                while slots[slot] != 0 { slot = (slot + 1) & (capacity - 1) }
                slots[slot] = key << 3 | UInt64(flags)
            }
            self.slots = slots
            mask = capacity - 1
            var next = [Int16](repeating: 0, count: 32)
            var ends = [false]
            for suffix in suffixes {
                precondition(suffix.utf8.count < Self.keyLetters, "a suffix longer than a key holds: \(suffix)")
                var node = 0
                for byte in suffix.utf8.reversed() {
                    let slot = node * 32 + Int(Self.code(byte))
                    if next[slot] == 0 {
                        next[slot] = Int16(ends.count)
                        ends.append(false)
                        next += [Int16](repeating: 0, count: 32)
                    }
                    node = Int(next[slot])
                }
                ends[node] = true
            }
            suffixNext = next
            suffixEnds = ends
        }

        /// Whether the word of `length` letters whose key (or the key of its last letters) is
        /// `key` ends with a Turkish suffix shorter than itself.
        @inline(__always)
        func endsWithSuffix(key: UInt64, length: Int) -> Bool {
            suffixNext.withUnsafeBufferPointer { next in
                var node = 0
                var rest = key
                // Stop before the first letter: the suffix must be shorter than the word. (Every
                // suffix is shorter than a key, so a long word's lost letters are never reached.)
                for _ in 0..<min(length - 1, WordTable.keyLetters) {
                    node = Int(next[node &* 32 &+ Int(rest & 31)])
                    if node == 0 { return false }
                    if suffixEnds[node] { return true }
                    rest &>>= 5
                }
                return false
            }
        }

        @inline(__always)
        static func slot(_ key: UInt64, mask: Int) -> Int {
            Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> 40) & mask
        }

        /// The flags of the word with this key (0: in no list).
        @inline(__always)
        func flags(of key: UInt64) -> UInt8 {
            let tag = key << 3
            return slots.withUnsafeBufferPointer { slots in
                var slot = Self.slot(key, mask: mask)
                while true {
                    let entry = slots[slot]
                    if entry == 0 { return 0 }
                    if entry & ~7 == tag { return UInt8(truncatingIfNeeded: entry & 7) }
                    slot = (slot + 1) & mask
                }
            }
        }
    }

    static let wordTable = WordTable(turkish: turkishWords, english: englishWords, suffixes: turkishSuffixes)

    /// Turkish letters folded to ASCII so that "için" and "icin" are the same word.
    @inline(__always)
    static func turkishLetterFold(_ s: UInt32) -> UInt8 {
        switch s {
        case 0x11E, 0x11F: 0x67
        case 0x15E, 0x15F: 0x73
        case 0x130, 0x131: 0x69
        case 0xE7, 0xC7: 0x63
        case 0xF6, 0xD6: 0x6F
        default: 0x75  // ü Ü
        }
    }

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
        "kac", "hangisi", "yaz", "anlat", "goster", "ertele", "koy", "iptal", "ekle", "kaldir", "bul", "oner",
        "bos", "muyum", "miyim", "varmi", "yokmu", "kimin", "diyo", "galiba", "bilmiyom", "bilmiyorum",
        "gitti", "geldi", "oldu", "olum", "olsem", "olucem", "aptal", "randevu", "randevumu", "takvim",
        "takvimi", "takvimimi", "takvimini", "toplantiyi", "toplantisini", "yarina", "bugunku", "haftaya",
        "saat", "ogleden", "aksami", "sabahi", "gibi", "icinde", "kadar", "beri", "dolayi", "ustune", "sey",
        "nedir", "neden", "midir", "musun", "misin", "lazim", "gerek", "istiyom", "yapcam", "napicam",
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
        "dont", "cant", "ty", "thx", "pls", "plz", "ok", "okay", "bye", "u", "ur", "lol", "way", "best",
        "without", "by", "into", "than", "then", "been", "did", "does", "doing", "anyone", "something",
        "nobody", "nothing", "need", "feel", "think", "say", "said", "post", "story", "list", "methods",
        "much", "many", "most", "over", "after", "before", "am", "were", "being", "because", "too", "again",
    ]

    /// Endings of Turkish verb and noun forms (without Turkish letters).
    static let turkishSuffixes: [String] = [
        "iyorum", "iyor", "uyorum", "uyor", "yorum", "ecegim", "acagim", "ecek", "acak", "mak", "mek",
        "miyorum", "mayacagim", "meyecegim", "meliyim", "maliyim", "dim", "dum", "tim", "tum",
        "sinda", "sinde", "larini", "lerini", "lari", "leri", "lerim", "larim", "imiz", "umuz",
        "iyoruz", "yoruz", "misin", "misiniz", "isin", "abilir", "ebilir", "abilirim", "ebilirim",
        "yom", "icem", "icam", "ucem", "ucam", "lik", "luk", "siz", "suz", "sini", "sunu", "nin", "nun",
        "miyim", "muyum", "muyuz", "dir", "dur", "tir", "tur", "mali", "meli", "mayi", "meyi", "lari",
    ]
}
