#include "vision/ocr/TextFinder.h"

#include "base/Utf8.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace eacu {

namespace {

char32_t foldWidth(char32_t c) {
    if (c >= 0xFF01 && c <= 0xFF5E) return c - 0xFF01 + 0x21;
    if (c == 0x3000) return ' ';
    return c;
}

char32_t foldCase(char32_t c) {
    if (c >= 'A' && c <= 'Z') return c + 32;
    if (c < 0x80) return c;
    if (c >= 0xC0 && c <= 0xDE && c != 0xD7) return c + 32;
    if (c >= 0x391 && c <= 0x3A9 && c != 0x3A2) return c + 32;
    if (c >= 0x410 && c <= 0x42F) return c + 32;
    if (c >= 0x400 && c <= 0x40F) return c + 80;
    return c;
}

bool isSpace(char32_t c) {
    return c == ' ' || (c >= 0x09 && c <= 0x0D) || c == 0xA0 || (c >= 0x2000 && c <= 0x200B) ||
           c == 0x3000 || c == 0xFEFF || c == 0x202F || c == 0x205F;
}

bool isPunct(char32_t c) {
    if (c < 0x80) return (c >= 0x21 && c <= 0x2F) || (c >= 0x3A && c <= 0x40) || (c >= 0x5B && c <= 0x60) ||
                         (c >= 0x7B && c <= 0x7E);
    if (c >= 0xA1 && c <= 0xBF) return c != 0xAA && c != 0xB2 && c != 0xB3 && c != 0xB5 && c != 0xB9 && c != 0xBA &&
                                       (c < 0xBC || c > 0xBE);
    if (c == 0xD7 || c == 0xF7) return true;
    if (c >= 0x2010 && c <= 0x205E) return true;                 // general punctuation
    if (c >= 0x2190 && c <= 0x21FF) return true;                 // arrows
    if (c >= 0x2500 && c <= 0x25FF) return true;                 // box drawing, bullets, shapes
    if (c >= 0x3001 && c <= 0x303F) return c < 0x3005 || c > 0x3007;  // CJK punctuation (not 々〆〇)
    if (c >= 0xFE10 && c <= 0xFE1F) return true;                 // vertical forms
    if (c >= 0xFE30 && c <= 0xFE6F) return true;                 // CJK compatibility, small forms
    if (c >= 0xFF5F && c <= 0xFF65) return true;                 // halfwidth CJK punctuation
    return false;
}

/// Folded characters that match: equal ones, and "I" with "l" (after case folding "i" and
/// "l"): one glyph in sans-serif fonts (DejaVu Sans, the GTK and Tk default here), read either
/// way by OCR (a tab "UI" read "Ul").
bool sameGlyph(char32_t a, char32_t b) {
    return a == b || (a == U'i' && b == U'l') || (a == U'l' && b == U'i');
}

/// One folded character of a line and where it came from.
struct Src {
    int word;   // index in the line's words
    int index;  // code point index in the word's text
};

struct Folded {
    std::u32string chars;
    std::vector<Src> src;
};

void foldInto(const std::u32string& cps, int word, bool case_sensitive, bool keep_punct, Folded& out) {
    for (size_t i = 0; i < cps.size(); ++i) {
        char32_t c = foldWidth(cps[i]);
        if (isSpace(c)) continue;
        if (!keep_punct && isPunct(c)) continue;
        if (!case_sensitive) c = foldCase(c);
        out.chars.push_back(c);
        out.src.push_back({word, int(i)});
    }
}

// Levenshtein distance from `a` to `b`; with `substring_of_b`, to the best substring of `b`
// (a free start and end in b: Sellers, "The theory and computation of evolutionary distances:
// pattern recognition", J. Algorithms 1980).
size_t editDistance(const std::u32string& a, const std::u32string& b, bool substring_of_b) {
    std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) prev[j] = substring_of_b ? 0 : j;
    for (size_t i = 1; i <= a.size(); ++i) {
        cur[0] = i;
        for (size_t j = 1; j <= b.size(); ++j)
            cur[j] = std::min({prev[j - 1] + (a[i - 1] != b[j - 1]), prev[j] + 1, cur[j - 1] + 1});
        std::swap(prev, cur);
    }
    return substring_of_b ? *std::min_element(prev.begin(), prev.end()) : prev[b.size()];
}

struct Candidate {
    TextMatch m;
    bool case_exact = false;
    bool isolated = false;  // a label of its own, not a word inside running text
    double size = 0;        // box width per matched character: the rendered text size
    size_t order = 0;       // reading order
};

/// Whether the word `w` of `line` separates the match from its neighbours like a label's
/// edge does: a word of punctuation only ("|", "»"), a one-character first word (a list
/// bullet or an icon read as a letter), or a gap wider than the text height.
bool separates(const OcrLine& line, int w, const Rect& match, bool left) {
    if (w < 0 || w >= int(line.words.size())) return true;
    const OcrWord& word = line.words[w];
    std::u32string f = foldText(word.text, false, false);
    if (f.empty()) return true;
    if (w == 0 && left && f.size() <= 1) return true;
    int gap = left ? match.x - (word.box.x + word.box.w) : word.box.x - (match.x + match.w);
    return gap >= match.h;
}

/// The line that line `i` wraps onto: the nearest line starting below it, within one line
/// height, of a similar height (within 1.5x), overlapping it horizontally. -1 if none.
int wrapsOnto(const OcrResult& ocr, size_t i) {
    const Rect& a = ocr.lines[i].box;
    int best = -1;
    for (size_t j = 0; j < ocr.lines.size(); ++j) {
        if (j == i) continue;
        const Rect& b = ocr.lines[j].box;
        int gap = b.y - (a.y + a.h);
        int hmax = std::max(a.h, b.h), hmin = std::min(a.h, b.h);
        if (gap < -hmin / 3 || gap > hmax || hmax * 2 > hmin * 3) continue;
        if (b.x >= a.x + a.w || b.x + b.w <= a.x) continue;
        if (best < 0 || b.y < ocr.lines[size_t(best)].box.y) best = int(j);
    }
    return best;
}

/// The line that continues line `i` on the same row: the nearest line starting right of it,
/// at most one text height away, of a similar height (within 1.5x), overlapping 70 % of the
/// lower one's rows. Tesseract's sparse-text pass reads a label such as "Save all" as two
/// lines when a small fixed font spaces its words widely. -1 if none.
int continuesOnRow(const OcrResult& ocr, size_t i) {
    const Rect& a = ocr.lines[i].box;
    int best = -1;
    for (size_t j = 0; j < ocr.lines.size(); ++j) {
        if (j == i) continue;
        const Rect& b = ocr.lines[j].box;
        int gap = b.x - (a.x + a.w);
        int hmax = std::max(a.h, b.h), hmin = std::min(a.h, b.h);
        int overlap = std::min(a.y + a.h, b.y + b.h) - std::max(a.y, b.y);
        if (gap < -hmin / 3 || gap > hmin || hmax * 2 > hmin * 3 || overlap * 10 < hmin * 7) continue;
        if (best < 0 || b.x < ocr.lines[size_t(best)].box.x) best = int(j);
    }
    return best;
}

}  // namespace

std::u32string foldText(std::string_view utf8, bool case_sensitive, bool keep_punct) {
    Folded f;
    foldInto(decodeUtf8(utf8), 0, case_sensitive, keep_punct, f);
    return f.chars;
}

double textSimilarity(std::string_view a, std::string_view b, bool case_sensitive) {
    std::u32string fa = foldText(a, case_sensitive), fb = foldText(b, case_sensitive);
    size_t longer = std::max(fa.size(), fb.size());
    if (longer == 0) return 1.0;
    return 1.0 - double(editDistance(fa, fb, false)) / double(longer);
}

double containmentSimilarity(std::string_view needle, std::string_view haystack, bool case_sensitive) {
    std::u32string p = foldText(needle, case_sensitive), t = foldText(haystack, case_sensitive);
    if (p.empty()) return 1.0;
    return 1.0 - double(editDistance(p, t, true)) / double(p.size());
}

std::vector<TextMatch> findText(const OcrResult& ocr, const std::string& phrase, const TextFindOptions& options) {
    bool keep_punct = false;
    std::u32string pat = foldText(phrase, options.case_sensitive, false);
    if (pat.empty()) {
        keep_punct = true;
        pat = foldText(phrase, options.case_sensitive, true);
    }
    if (pat.empty()) throw std::invalid_argument("findText: expected a phrase with visible characters, got \"" + phrase + "\"");
    std::u32string pat_exact = foldText(phrase, true, keep_punct);
    const size_t m = pat.size();
    const double threshold = std::clamp(options.threshold, 0.0, 1.0);
    const size_t max_dist = size_t((1.0 - threshold) * double(m) + 1e-9);

    std::vector<Candidate> found;
    std::vector<size_t> prev(m + 1), cur(m + 1), prev_start(m + 1), cur_start(m + 1);
    // What is searched: every line, then every line followed by the line that continues it
    // on the same row or the line it wraps onto (a phrase broken over two lines; only
    // matches that cross the break count there).
    struct Seq {
        size_t a;
        int b;         // the next line, or -1
        size_t split;  // words before this index are line a's
    };
    std::vector<Seq> seqs;
    for (size_t li = 0; li < ocr.lines.size(); ++li) seqs.push_back({li, -1, ocr.lines[li].words.size()});
    for (size_t li = 0; li < ocr.lines.size(); ++li) {
        for (int b : {continuesOnRow(ocr, li), wrapsOnto(ocr, li)})
            if (b >= 0) seqs.push_back({li, b, ocr.lines[li].words.size()});
    }
    OcrLine joined;
    for (const Seq& seq : seqs) {
        const size_t li = seq.a;
        if (seq.b >= 0) {
            joined = ocr.lines[li];
            const auto& more = ocr.lines[size_t(seq.b)].words;
            joined.words.insert(joined.words.end(), more.begin(), more.end());
        }
        const OcrLine& line = seq.b >= 0 ? joined : ocr.lines[li];
        Folded t;
        std::vector<std::u32string> cps(line.words.size());
        for (size_t wi = 0; wi < line.words.size(); ++wi) {
            cps[wi] = decodeUtf8(line.words[wi].text);
            foldInto(cps[wi], int(wi), options.case_sensitive, keep_punct, t);
        }
        const size_t n = t.chars.size();
        if (n == 0) continue;
        // Semi-global edit distance: the whole phrase against any substring of the line.
        for (size_t i = 0; i <= m; ++i) {
            prev[i] = i;
            prev_start[i] = 0;
        }
        struct End {
            size_t dist, start, end;  // folded chars [start, end)
        };
        std::vector<End> ends;
        for (size_t j = 1; j <= n; ++j) {
            cur[0] = 0;
            cur_start[0] = j;
            for (size_t i = 1; i <= m; ++i) {
                size_t sub = prev[i - 1] + !sameGlyph(pat[i - 1], t.chars[j - 1]);
                size_t del = prev[i] + 1;     // an extra character in the text
                size_t ins = cur[i - 1] + 1;  // a phrase character missing from the text
                if (sub <= del && sub <= ins) {
                    cur[i] = sub;
                    cur_start[i] = prev_start[i - 1];
                } else if (ins <= del) {
                    cur[i] = ins;
                    cur_start[i] = cur_start[i - 1];
                } else {
                    cur[i] = del;
                    cur_start[i] = prev_start[i];
                }
            }
            if (cur[m] <= max_dist && cur_start[m] < j) ends.push_back({cur[m], cur_start[m], j});
            std::swap(prev, cur);
            std::swap(prev_start, cur_start);
        }
        // Best first, then drop spans that overlap a better one.
        std::stable_sort(ends.begin(), ends.end(), [](const End& a, const End& b) { return a.dist < b.dist; });
        std::vector<End> kept;
        for (const End& e : ends) {
            bool overlaps = false;
            for (const End& k : kept)
                if (e.start < k.end && k.start < e.end) overlaps = true;
            if (!overlaps) kept.push_back(e);
        }
        for (const End& e : kept) {
            Candidate c;
            const Src& first = t.src[e.start];
            const Src& last = t.src[e.end - 1];
            if (seq.b >= 0 && !(size_t(first.word) < seq.split && size_t(last.word) >= seq.split)) continue;
            // Whole words: the span starts at its first word's first folded char and ends at
            // its last word's last folded char.
            bool starts_word = e.start == 0 || t.src[e.start - 1].word != first.word;
            bool ends_word = e.end == n || t.src[e.end].word != last.word;
            Rect box;
            float conf = 1.0f;
            std::string text;
            for (int w = first.word; w <= last.word; ++w) {
                const OcrWord& word = line.words[w];
                Rect b = word.box;
                int len = int(cps[w].size());
                if (w == first.word && !starts_word && len > 0) {
                    int dx = int(double(b.w) * first.index / len);
                    b.x += dx;
                    b.w -= dx;
                }
                if (w == last.word && !ends_word && len > 0) {
                    int right = int(std::ceil(double(word.box.w) * (last.index + 1) / len)) + word.box.x;
                    b.w = std::max(1, right - b.x);
                }
                if (box.empty()) {
                    box = b;
                } else {
                    int x0 = std::min(box.x, b.x), y0 = std::min(box.y, b.y);
                    int x1 = std::max(box.x + box.w, b.x + b.w), y1 = std::max(box.y + box.h, b.y + b.h);
                    box = {x0, y0, x1 - x0, y1 - y0};
                }
                conf = std::min(conf, word.confidence);
                if (w == first.word && w == last.word && !(starts_word && ends_word)) {
                    text = encodeUtf8(std::u32string_view(cps[w]).substr(first.index, last.index - first.index + 1));
                } else {
                    std::u32string_view v(cps[w]);
                    if (w == first.word && !starts_word) v = v.substr(first.index);
                    if (w == last.word && !ends_word) v = v.substr(0, last.index + 1);
                    if (!text.empty()) text += ' ';
                    text += encodeUtf8(v);
                }
            }
            c.m.box = box;
            c.m.text = text;
            c.m.score = 1.0 - double(e.dist) / double(m);
            c.m.confidence = conf;
            c.m.line = int(li);
            c.m.first_word = first.word;
            c.m.last_word = seq.b >= 0 ? last.word - int(seq.split) : last.word;
            c.m.end_line = seq.b >= 0 ? seq.b : int(li);
            c.m.whole_words = starts_word && ends_word;
            c.isolated = c.m.whole_words && separates(line, first.word - 1, box, true) &&
                         separates(line, last.word + 1, box, false);
            c.size = double(box.w) / double(e.end - e.start);
            c.order = found.size();
            if (!options.case_sensitive) {
                Folded span;
                for (int w = first.word; w <= last.word; ++w) foldInto(cps[w], w, true, keep_punct, span);
                // The exact-case span is the same characters: compare the matched range.
                size_t off = 0;
                while (off < span.src.size() && (span.src[off].word != first.word || span.src[off].index != first.index)) ++off;
                std::u32string s = span.chars.substr(off, e.end - e.start);
                c.case_exact = s == pat_exact;
            } else {
                c.case_exact = e.dist == 0;
            }
            found.push_back(std::move(c));
        }
    }
    std::stable_sort(found.begin(), found.end(), [](const Candidate& a, const Candidate& b) {
        if (a.m.score != b.m.score) return a.m.score > b.m.score;
        if (a.m.whole_words != b.m.whole_words) return a.m.whole_words;
        if (a.case_exact != b.case_exact) return a.case_exact;
        if ((a.m.end_line == a.m.line) != (b.m.end_line == b.m.line)) return a.m.end_line == a.m.line;
        if (a.isolated != b.isolated) return a.isolated;
        return a.order < b.order;
    });
    // Among the equally good, the first in reading order unless another is clearly larger
    // text (a heading over a mention in a sidebar or in running text).
    if (!found.empty()) {
        size_t best = 0;
        for (size_t i = 1; i < found.size(); ++i) {
            const Candidate &a = found[0], &b = found[i];
            if (b.m.score != a.m.score || b.m.whole_words != a.m.whole_words || b.case_exact != a.case_exact ||
                (b.m.end_line == b.m.line) != (a.m.end_line == a.m.line) || b.isolated != a.isolated)
                break;
            if (b.size > found[best].size * 1.1) best = i;
        }
        std::rotate(found.begin(), found.begin() + best, found.begin() + best + 1);
    }
    std::vector<TextMatch> out;
    for (auto& c : found) {
        if (out.size() >= options.max_results) break;
        out.push_back(std::move(c.m));
    }
    return out;
}

}  // namespace eacu
