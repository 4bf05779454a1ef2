// The language of a code block (code_language.h): signs each language's code carries and prose
// does not, counted per line; the language with two or more of them wins, else "txt".
#include "code_language.h"

#include <array>
#include <cctype>

namespace rop::stdlib::assemble::detail {
namespace {

bool starts_with(std::string_view text, std::string_view prefix) {
    return text.substr(0, prefix.size()) == prefix;
}

bool ends_with(std::string_view text, std::string_view suffix) {
    return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

bool contains(std::string_view text, std::string_view part) {
    return text.find(part) != std::string_view::npos;
}

std::string_view trimmed(std::string_view text) {
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) {
        text.remove_prefix(1);
    }
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) {
        text.remove_suffix(1);
    }
    return text;
}

// An identifier followed by '(' somewhere after `prefix`: "def name(", "func name(".
bool call_after(std::string_view line, std::string_view prefix) {
    if (!starts_with(line, prefix)) return false;
    std::size_t at = prefix.size();
    const std::size_t start = at;
    while (at < line.size() && (std::isalnum(static_cast<unsigned char>(line[at])) ||
                                line[at] == '_' || line[at] == '.')) {
        ++at;
    }
    return at > start && at < line.size() && line[at] == '(';
}

enum Language { c, cpp, python, shell, java, javascript, go, rust, sql, makefile, kLanguages };
constexpr std::array<const char*, kLanguages> kNames = {
    "c", "cpp", "python", "shell", "java", "javascript", "go", "rust", "sql", "makefile"};

// The signs one line gives, added to `score`.
void score_line(std::string_view raw, std::array<int, kLanguages>& score) {
    const std::string_view line = trimmed(raw);
    if (line.empty()) return;
    if (starts_with(line, "#include <") || starts_with(line, "#include \"")) {
        ++score[c];
        ++score[cpp];
        if (contains(line, "<iostream>") || contains(line, "<vector>") ||
            contains(line, "<string>")) {
            score[cpp] += 2;
        }
    }
    if (starts_with(line, "#define ") || starts_with(line, "#ifdef ") ||
        starts_with(line, "#ifndef ") || starts_with(line, "#endif")) {
        ++score[c];
        ++score[cpp];
    }
    if (contains(line, "std::") || starts_with(line, "template <") ||
        starts_with(line, "template<") || starts_with(line, "namespace ") ||
        contains(line, "cout <<")) {
        score[cpp] += 2;
    }
    if (contains(line, "printf (") || contains(line, "printf(") || contains(line, "malloc (") ||
        contains(line, "malloc(") || contains(line, "sizeof (") || contains(line, "sizeof(")) {
        ++score[c];
        ++score[cpp];
    }
    // A C prototype: a type word, a name, its parameters, ";" (a definition's "{" is no sign:
    // "int main() {" may be any C-like language, or pseudo-code).
    static constexpr std::array<std::string_view, 12> kTypes = {
        "int ",  "void ",   "char ",   "const ",  "static ", "unsigned ",
        "long ", "struct ", "extern ", "double ", "float ",  "size_t "};
    for (std::string_view type : kTypes) {
        if (starts_with(line, type) && contains(line, "(") && ends_with(line, ");")) {
            score[c] += 2;
            score[cpp] += 2;
            break;
        }
    }
    if (call_after(line, "def ") && ends_with(line, ":")) score[python] += 2;
    if ((starts_with(line, "import ") && !ends_with(line, ";")) ||
        (starts_with(line, "from ") && contains(line, " import "))) {
        ++score[python];
    }
    if (starts_with(line, "class ") && ends_with(line, ":")) ++score[python];
    if (starts_with(line, "sudo ") || starts_with(line, "apt-get ") || starts_with(line, "apt ") ||
        starts_with(line, "export ") || starts_with(line, "./configure")) {
        ++score[shell];
    }
    if (starts_with(line, "fi") && line.size() == 2) ++score[shell];
    if (starts_with(line, "if [") || (starts_with(line, "for ") && contains(line, "; do"))) {
        ++score[shell];
    }
    if (contains(line, "public static void main") || contains(line, "System.out.print")) {
        score[java] += 2;
    }
    if (starts_with(line, "public class ") || starts_with(line, "import java.")) score[java] += 2;
    if (contains(line, "console.log(") || (starts_with(line, "const ") && contains(line, " = ")) ||
        call_after(line, "function ")) {
        ++score[javascript];
    }
    if (starts_with(line, "package main") || starts_with(line, "import \"fmt\"") ||
        contains(line, "fmt.Print")) {
        score[go] += 2;
    }
    if (call_after(line, "func ")) ++score[go];
    if (call_after(line, "fn ") || call_after(line, "pub fn ") || starts_with(line, "let mut ") ||
        contains(line, "println!(")) {
        ++score[rust];
    }
    if (starts_with(line, "SELECT ") || starts_with(line, "INSERT INTO ") ||
        starts_with(line, "CREATE TABLE ") ||
        (starts_with(line, "UPDATE ") && contains(line, " SET "))) {
        score[sql] += 2;
    }
    if (!raw.empty() && raw.front() == '\t' && (starts_with(line, "$(") || contains(line, "$@"))) {
        score[makefile] += 2;
    }
}

}  // namespace

std::string code_language(std::string_view code) {
    const std::string_view text = trimmed(code);
    if (starts_with(text, "#!")) {
        const std::string_view first = text.substr(0, text.find('\n'));
        if (contains(first, "python")) return "python";
        if (contains(first, "perl")) return "perl";
        if (contains(first, "sh")) return "shell";
    }
    if (starts_with(text, "<?xml")) return "xml";
    if (starts_with(text, "<!DOCTYPE html") || starts_with(text, "<html")) return "html";
    if ((starts_with(text, "{") && ends_with(text, "}")) ||
        (starts_with(text, "[") && ends_with(text, "]"))) {
        if (contains(text, "\":") && !contains(text, ";")) return "json";
    }
    std::array<int, kLanguages> score{};
    std::size_t start = 0;
    while (start < code.size()) {
        std::size_t end = code.find('\n', start);
        if (end == std::string_view::npos) end = code.size();
        score_line(code.substr(start, end - start), score);
        start = end + 1;
    }
    int best = -1;
    for (int language = 0; language < kLanguages; ++language) {
        if (score[language] < 2) continue;
        if (best < 0 || score[language] > score[best]) best = language;
    }
    return best < 0 ? "txt" : kNames[static_cast<std::size_t>(best)];
}

}  // namespace rop::stdlib::assemble::detail
