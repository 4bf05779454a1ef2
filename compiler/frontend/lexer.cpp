// The lexer. One pass over the bytes; every branch consumes at least one byte, so it always
// terminates, and a lexical error never stops it: the bad token is reported and kept.
// Lines end at LF, CRLF or a lone CR (as in SourceManager); names are ASCII, and a name written
// with other letters is one error for the whole name, never an error plus a cascade.
#include "frontend/lexer.h"

#include <charconv>
#include <limits>

#include "support/utf8.h"

namespace rop {

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_ident_char(char c) { return is_ident_start(c) || is_digit(c); }
bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}
bool is_line_end(char c) { return c == '\n' || c == '\r'; }

int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

struct DurationUnit {
    std::string_view suffix;
    std::int64_t millis;
};
constexpr DurationUnit kDurationUnits[] = {{"ms", 1}, {"s", 1000}, {"m", 60'000}, {"h", 3'600'000}};

class Lexer {
  public:
    Lexer(FileId file, std::string_view text, DiagnosticEngine& diags,
          std::vector<SourceRange>* comments)
        : file_(file), text_(text), diags_(diags), comments_(comments) {}

    std::vector<Token> run() {
        std::vector<Token> tokens;
        while (true) {
            skip_space_and_comments();
            if (pos_ >= text_.size()) break;
            tokens.push_back(next());
        }
        Token eof;
        eof.range = range(static_cast<std::uint32_t>(text_.size()), text_.size());
        tokens.push_back(eof);
        return tokens;
    }

  private:
    char peek(std::size_t ahead = 0) const {
        return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
    }
    bool at_end(std::size_t ahead = 0) const { return pos_ + ahead >= text_.size(); }

    SourceRange range(std::size_t begin, std::size_t end) const {
        return {file_, static_cast<std::uint32_t>(begin), static_cast<std::uint32_t>(end)};
    }

    Token make(TokenKind kind, std::size_t begin) const {
        Token token;
        token.kind = kind;
        token.range = range(begin, pos_);
        token.text = text_.substr(begin, pos_ - begin);
        return token;
    }

    void skip_space_and_comments() {
        while (!at_end()) {
            char c = peek();
            if (is_space(c)) {
                ++pos_;
            } else if (c == '#' || (c == '/' && peek(1) == '/')) {
                std::size_t begin = pos_;
                while (!at_end() && !is_line_end(peek())) ++pos_;
                if (comments_) comments_->push_back(range(begin, pos_));
            } else {
                return;
            }
        }
    }

    bool starts_token() const {
        char c = peek();
        return is_space(c) || is_ident_start(c) || is_digit(c) || c == '"' || c == '#' ||
               std::string_view(";:=()[],.?").find(c) != std::string_view::npos ||
               (c == '-' && (peek(1) == '>' || is_digit(peek(1)))) ||
               (c == '/' && peek(1) == '/') || foreign_word_char() > 0;
    }

    // Bytes of the character at pos_ when it is a non-ASCII character that may belong to a
    // word: a letter of another script (read into the name, so the name is rejected once as a
    // whole), or a byte that is not UTF-8 (1). 0 for ASCII and for non-ASCII punctuation and
    // symbols, which stay invalid characters of their own.
    std::size_t foreign_word_char() const {
        if (at_end() || static_cast<unsigned char>(peek()) < 0x80) return 0;
        std::size_t length = utf8::sequence_length(text_, pos_);
        if (length == 0) return 1;
        return utf8::is_word_like(utf8::decode(text_, pos_, length)) ? length : 0;
    }

    // Moves past one character: a well-formed UTF-8 sequence, or one byte that is not UTF-8.
    void advance_char() {
        std::size_t length = utf8::sequence_length(text_, pos_);
        pos_ += length == 0 ? 1 : length;
    }

    Token next() {
        std::size_t begin = pos_;
        char c = peek();
        if (is_ident_start(c) || foreign_word_char() > 0) return word();
        if (static_cast<unsigned char>(c) >= 0x80) {  // punctuation or a symbol of Unicode
            advance_char();
            return invalid(begin);
        }
        if (is_digit(c) || (c == '-' && is_digit(peek(1)))) return number();
        if (c == '"') return string();
        if (c == '-' && peek(1) == '>') {
            pos_ += 2;
            return make(TokenKind::Arrow, begin);
        }
        ++pos_;
        switch (c) {
            case ';': return make(TokenKind::Semicolon, begin);
            case ':': return make(TokenKind::Colon, begin);
            case '=': return make(TokenKind::Equal, begin);
            case '(': return make(TokenKind::LParen, begin);
            case ')': return make(TokenKind::RParen, begin);
            case '[': return make(TokenKind::LBracket, begin);
            case ']': return make(TokenKind::RBracket, begin);
            case ',': return make(TokenKind::Comma, begin);
            case '.': return make(TokenKind::Dot, begin);
            case '?': return make(TokenKind::Question, begin);
            default: return invalid(begin);
        }
    }

    // A name: ASCII letters, digits and '_'. Letters of other scripts and bytes that are not
    // UTF-8 next to them are read into the same word, and such a word is one diagnostic over all
    // of it, naming its first offending character; it stays an identifier so the parser reads on
    // as if the name were fine (`pagés = map ...` is one error, not three).
    Token word() {
        std::size_t begin = pos_;
        std::size_t first_foreign = std::string_view::npos;
        bool has_character = false;  // an ASCII name character or a well-formed foreign letter
        while (!at_end()) {
            if (is_ident_char(peek())) {
                has_character = true;
                ++pos_;
                continue;
            }
            std::size_t length = foreign_word_char();
            if (length == 0) break;
            if (first_foreign == std::string_view::npos) first_foreign = pos_;
            if (utf8::sequence_length(text_, pos_) != 0) has_character = true;
            pos_ += length;
        }
        Token token = make(TokenKind::Ident, begin);
        if (first_foreign == std::string_view::npos) {
            token.kind = keyword_kind(token.text);
            return token;
        }
        if (!has_character) {  // nothing but bytes that are not UTF-8: no name at all
            token.kind = TokenKind::Error;
            std::string what = token.text.size() == 1 ? "invalid byte " : "invalid bytes ";
            diags_.report(DiagId::InvalidCharacter, token.range,
                          what + describe(token) + " (not UTF-8)");
            return token;
        }
        diags_.report(DiagId::InvalidCharacter, token.range,
                      "invalid " + describe_char(first_foreign) + " in " + describe(token) +
                          "; identifiers are ASCII letters, digits and '_'");
        return token;
    }

    // "character 'é' (U+00E9)", or "byte '\xe9' (not UTF-8)".
    std::string describe_char(std::size_t at) const {
        std::size_t length = utf8::sequence_length(text_, at);
        if (length == 0) {
            return "byte '" + utf8::printable(text_.substr(at, 1), 1) + "' (not UTF-8)";
        }
        return "character '" + utf8::printable(text_.substr(at, length), 1) + "' (" +
               utf8::code_point_name(utf8::decode(text_, at, length)) + ")";
    }

    // A run of characters that start no token becomes one Error token and one diagnostic. On
    // entry pos_ is past the run's first character.
    Token invalid(std::size_t begin) {
        while (!at_end() && !starts_token()) advance_char();
        Token token = make(TokenKind::Error, begin);
        std::string message;
        std::size_t first = utf8::sequence_length(text_, begin);
        bool one_character = first != 0 && begin + first == pos_;
        char32_t cp = one_character ? utf8::decode(text_, begin, first) : 0;
        if (one_character && (cp >= 0x80 || utf8::is_invisible(cp))) {
            message = "invalid " + describe_char(begin);  // "character '→' (U+2192)"
        } else {
            message =
                (one_character ? "invalid character " : "invalid characters ") + describe(token);
        }
        if (token.text == "-") message += "; did you mean '->'?";
        if (token.text == "/") message += "; comments start with '#' or '//'";
        diags_.report(DiagId::InvalidCharacter, token.range, std::move(message));
        return token;
    }

    Token number() {
        std::size_t begin = pos_;
        if (peek() == '-') ++pos_;
        while (is_digit(peek())) ++pos_;
        bool is_float = false;
        if (peek() == '.' && is_digit(peek(1))) {
            is_float = true;
            ++pos_;
            while (is_digit(peek())) ++pos_;
        }
        std::size_t sign = (peek(1) == '+' || peek(1) == '-') ? 1 : 0;
        if ((peek() == 'e' || peek() == 'E') && is_digit(peek(1 + sign))) {
            is_float = true;
            pos_ += 1 + sign;
            while (is_digit(peek())) ++pos_;
        }
        std::size_t digits_end = pos_;
        while (!at_end() && (is_ident_char(peek()) || foreign_word_char() > 0)) advance_char();
        std::string_view digits = text_.substr(begin, digits_end - begin);
        std::string_view suffix = text_.substr(digits_end, pos_ - digits_end);

        if (suffix.empty())
            return is_float ? float_literal(begin, digits) : int_literal(begin, digits);
        for (const DurationUnit& unit : kDurationUnits) {
            if (suffix == unit.suffix) return duration(begin, digits, is_float, unit);
        }
        Token token = make(is_float ? TokenKind::Float : TokenKind::Int, begin);
        diags_.report(DiagId::InvalidNumber, range(digits_end, pos_),
                      "invalid suffix '" + std::string(suffix) +
                          "' on number literal; durations use ms, s, m or h");
        return token;
    }

    Token int_literal(std::size_t begin, std::string_view digits) {
        Token token = make(TokenKind::Int, begin);
        auto [end, ec] =
            std::from_chars(digits.data(), digits.data() + digits.size(), token.int_value);
        if (ec != std::errc{} || end != digits.data() + digits.size()) {
            token.int_value = 0;
            diags_.report(DiagId::NumberOutOfRange, token.range,
                          "integer literal " + describe(token) + " does not fit in 64 bits");
        }
        return token;
    }

    Token float_literal(std::size_t begin, std::string_view digits) {
        Token token = make(TokenKind::Float, begin);
        auto [end, ec] =
            std::from_chars(digits.data(), digits.data() + digits.size(), token.float_value);
        if (ec != std::errc{} || end != digits.data() + digits.size()) {
            token.float_value = 0;
            diags_.report(DiagId::NumberOutOfRange, token.range,
                          "float literal " + describe(token) + " is out of range");
        }
        return token;
    }

    Token duration(std::size_t begin, std::string_view digits, bool is_float, DurationUnit unit) {
        Token token = make(TokenKind::Duration, begin);
        if (digits.front() == '-') {
            diags_.report(DiagId::InvalidNumber, token.range, "a duration cannot be negative");
            return token;
        }
        if (is_float) {
            diags_.report(
                DiagId::InvalidNumber, token.range,
                "a duration is a whole number of ms, s, m or h; write e.g. 1500ms, not 1.5s");
            return token;
        }
        std::int64_t count = 0;
        auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), count);
        if (ec != std::errc{} || end != digits.data() + digits.size() ||
            count > std::numeric_limits<std::int64_t>::max() / unit.millis) {
            diags_.report(DiagId::NumberOutOfRange, token.range,
                          "duration " + describe(token) + " is too long (over 2^63 ms)");
            return token;
        }
        token.int_value = count * unit.millis;
        return token;
    }

    Token string() {
        std::size_t begin = pos_++;
        std::string value;
        while (true) {
            if (at_end() || is_line_end(peek())) {
                Token token = make(TokenKind::String, begin);
                token.string_value = std::move(value);
                diags_.report(DiagId::UnterminatedString, token.range,
                              "missing terminating '\"' character");
                return token;
            }
            char c = peek();
            if (c == '"') {
                ++pos_;
                Token token = make(TokenKind::String, begin);
                token.string_value = std::move(value);
                return token;
            }
            if (c == '\\') {
                escape(value);
            } else if (c == '\0') {
                raw_nul();
            } else {
                value += c;
                ++pos_;
            }
        }
    }

    // A NUL byte written as such inside a string: invisible in editors, and most tools read it
    // as the end of the text, so it is refused (once per run) rather than carried into the
    // plan. The escape \u{0} still writes one on purpose.
    void raw_nul() {
        std::size_t begin = pos_;
        while (!at_end() && peek() == '\0') ++pos_;
        diags_.report(DiagId::InvalidCharacter, range(begin, pos_),
                      "invalid character U+0000 (NUL) in string literal; write the escape "
                      "'\\u{0}' if a NUL is meant");
    }

    // At a backslash inside a string: decodes one escape into `value`, or reports it.
    void escape(std::string& value) {
        std::size_t begin = pos_++;
        char c = peek();
        switch (c) {
            case 'n':
                value += '\n';
                ++pos_;
                return;
            case 't':
                value += '\t';
                ++pos_;
                return;
            case '\\':
                value += '\\';
                ++pos_;
                return;
            case '"':
                value += '"';
                ++pos_;
                return;
            case 'u': unicode_escape(value, begin); return;
            default: break;
        }
        if (!at_end() && !is_line_end(c)) advance_char();
        std::string shown =
            at_end() || is_line_end(c)
                ? "\\"
                : "\\" + utf8::printable(text_.substr(begin + 1, pos_ - begin - 1), 1);
        diags_.report(DiagId::InvalidEscape, range(begin, pos_),
                      "invalid escape sequence '" + shown +
                          "'; valid escapes are \\n \\t \\\\ \\\" and \\u{XXXX}");
    }

    void unicode_escape(std::string& value, std::size_t begin) {
        ++pos_;  // 'u'
        bool ok = peek() == '{';
        std::uint32_t cp = 0;
        std::size_t count = 0;
        if (ok) {
            ++pos_;
            while (hex_value(peek()) >= 0 && count < 7) {
                cp = cp * 16 + static_cast<std::uint32_t>(hex_value(peek()));
                ++pos_;
                ++count;
            }
            ok = peek() == '}' && count >= 1 && count <= 6;
            if (peek() == '}') ++pos_;
        }
        if (ok && cp <= 0x10FFFF && !(cp >= 0xD800 && cp <= 0xDFFF)) {
            utf8::append(value, cp);
            return;
        }
        diags_.report(DiagId::InvalidEscape, range(begin, pos_),
                      ok ? "'\\u{...}' names no Unicode scalar value (surrogate or above 10FFFF)"
                         : "a unicode escape is written '\\u{XXXX}' with 1 to 6 hex digits");
    }

    FileId file_;
    std::string_view text_;
    DiagnosticEngine& diags_;
    std::vector<SourceRange>* comments_;  // null: comments are skipped without a trace
    std::size_t pos_ = 0;
};

}  // namespace

std::vector<Token> lex(FileId file, const SourceManager& sources, DiagnosticEngine& diags,
                       std::vector<SourceRange>* comments) {
    return Lexer(file, sources.text(file), diags, comments).run();
}

}  // namespace rop
