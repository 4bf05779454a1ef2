// The lexer. One pass over the bytes; every branch consumes at least one byte, so it always
// terminates, and a lexical error never stops it: the bad token is reported and kept.
#include "frontend/lexer.h"

#include <charconv>
#include <limits>

namespace rop {

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_ident_char(char c) { return is_ident_start(c) || is_digit(c); }
bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}

int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

void append_utf8(std::string& out, std::uint32_t cp) {
    auto byte = [&](std::uint32_t b) { out += static_cast<char>(b); };
    if (cp < 0x80) {
        byte(cp);
    } else if (cp < 0x800) {
        byte(0xC0 | (cp >> 6));
        byte(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        byte(0xE0 | (cp >> 12));
        byte(0x80 | ((cp >> 6) & 0x3F));
        byte(0x80 | (cp & 0x3F));
    } else {
        byte(0xF0 | (cp >> 18));
        byte(0x80 | ((cp >> 12) & 0x3F));
        byte(0x80 | ((cp >> 6) & 0x3F));
        byte(0x80 | (cp & 0x3F));
    }
}

struct DurationUnit {
    std::string_view suffix;
    std::int64_t millis;
};
constexpr DurationUnit kDurationUnits[] = {{"ms", 1}, {"s", 1000}, {"m", 60'000}, {"h", 3'600'000}};

class Lexer {
  public:
    Lexer(FileId file, std::string_view text, DiagnosticEngine& diags)
        : file_(file), text_(text), diags_(diags) {}

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
                while (!at_end() && peek() != '\n') ++pos_;
            } else {
                return;
            }
        }
    }

    bool starts_token() const {
        char c = peek();
        return is_space(c) || is_ident_start(c) || is_digit(c) || c == '"' || c == '#' ||
               std::string_view(";:=()[],.?").find(c) != std::string_view::npos ||
               (c == '-' && (peek(1) == '>' || is_digit(peek(1)))) || (c == '/' && peek(1) == '/');
    }

    Token next() {
        std::size_t begin = pos_;
        char c = peek();
        if (is_ident_start(c)) {
            while (!at_end() && is_ident_char(peek())) ++pos_;
            Token token = make(TokenKind::Ident, begin);
            token.kind = keyword_kind(token.text);
            return token;
        }
        if (is_digit(c) || (c == '-' && is_digit(peek(1)))) return number();
        if (c == '"') return string();
        if (c == '-' && peek(1) == '>') {
            pos_ += 2;
            return make(TokenKind::Arrow, begin);
        }
        ++pos_;
        switch (c) {
            case ';':
                return make(TokenKind::Semicolon, begin);
            case ':':
                return make(TokenKind::Colon, begin);
            case '=':
                return make(TokenKind::Equal, begin);
            case '(':
                return make(TokenKind::LParen, begin);
            case ')':
                return make(TokenKind::RParen, begin);
            case '[':
                return make(TokenKind::LBracket, begin);
            case ']':
                return make(TokenKind::RBracket, begin);
            case ',':
                return make(TokenKind::Comma, begin);
            case '.':
                return make(TokenKind::Dot, begin);
            case '?':
                return make(TokenKind::Question, begin);
            default:
                return invalid(begin);
        }
    }

    // A run of bytes that start no token becomes one Error token and one diagnostic.
    Token invalid(std::size_t begin) {
        while (!at_end() && !starts_token()) ++pos_;
        Token token = make(TokenKind::Error, begin);
        std::string what = token.text.size() == 1 ? "invalid character " : "invalid characters ";
        std::string message = what + describe(token);
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
        while (is_ident_char(peek())) ++pos_;
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
            if (at_end() || peek() == '\n') {
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
            } else {
                value += c;
                ++pos_;
            }
        }
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
            case 'u':
                unicode_escape(value, begin);
                return;
            default:
                break;
        }
        if (!at_end() && c != '\n') ++pos_;
        std::string shown = at_end() || c == '\n' ? "\\" : "\\" + std::string(1, c);
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
            append_utf8(value, cp);
            return;
        }
        diags_.report(DiagId::InvalidEscape, range(begin, pos_),
                      ok ? "'\\u{...}' names no Unicode scalar value (surrogate or above 10FFFF)"
                         : "a unicode escape is written '\\u{XXXX}' with 1 to 6 hex digits");
    }

    FileId file_;
    std::string_view text_;
    DiagnosticEngine& diags_;
    std::size_t pos_ = 0;
};

}  // namespace

std::vector<Token> lex(FileId file, const SourceManager& sources, DiagnosticEngine& diags) {
    return Lexer(file, sources.text(file), diags).run();
}

}  // namespace rop
