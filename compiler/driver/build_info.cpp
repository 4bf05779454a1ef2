#include "driver/build_info.h"

#include <algorithm>

namespace rop::driver {

namespace {

std::string joined(const std::vector<std::string>& words) {
    std::string out;
    for (const std::string& word : words) out += (out.empty() ? "" : " ") + word;
    return out;
}

}  // namespace

std::vector<std::string> stdlib_modules(const bind::BoundProgram& bound) {
    constexpr std::string_view kPrefix = "rop_stdlib_";
    std::vector<std::string> modules;
    for (const std::string& token : bound.link) {
        if (token.starts_with(kPrefix)) modules.push_back(token.substr(kPrefix.size()));
    }
    return modules;
}

std::vector<std::string> ocr_languages(const bind::BoundProgram& bound) {
    std::vector<std::string> languages;
    for (const bind::BoundCall& call : bound.calls) {
        if (call.decl == nullptr || !call.decl->qualified_name.starts_with("rop::stdlib::ocr::")) {
            continue;
        }
        for (const bind::BoundArgument& argument : call.arguments) {
            if (argument.param.name != "lang") continue;
            std::string text =
                argument.value ? argument.value->value.text : argument.param.default_text;
            std::erase(text, '"');  // the C++ default's source text: "\"eng\""
            std::size_t from = 0;
            while (from <= text.size()) {
                const std::size_t plus = std::min(text.find('+', from), text.size());
                const std::string language = text.substr(from, plus - from);
                const bool plain =
                    !language.empty() && language.find_first_not_of(
                                             "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                             "0123456789_-") == std::string::npos;
                if (plain &&
                    std::find(languages.begin(), languages.end(), language) == languages.end()) {
                    languages.push_back(language);
                }
                from = plus + 1;
            }
        }
    }
    return languages;
}

std::string build_info_source(const std::vector<std::string>& modules,
                              const std::vector<std::string>& languages) {
    return "\n// Written by ropc build: what --selfcheck checks (runtime/src/main/selfcheck.cpp).\n"
           "extern \"C\" const char rop_build_modules[] = \"" +
           joined(modules) + "\";\nextern \"C\" const char rop_build_ocr_languages[] = \"" +
           joined(languages) + "\";\n";
}

}  // namespace rop::driver
