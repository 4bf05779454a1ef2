// The printer that fills codegen templates: `$var$` substitution, automatic dedent, callback
// variables for nested blocks, and a hard CodegenError on anything it cannot resolve.
#pragma once

#include <concepts>
#include <cstddef>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace rop::codegen {

// A template that cannot be filled: an unknown or duplicate variable, an unterminated `$`, a
// malformed name. Always a compiler bug (the generator and its templates disagree), never a
// user error, so it names the template, its line and the variable.
class CodegenError : public std::runtime_error {
  public:
    // what(): "codegen template 'NAME', line N: PROBLEM" (no line part when line is 0).
    CodegenError(std::string template_name, std::size_t line, std::string variable,
                 const std::string& problem);

    const std::string& template_name() const { return template_name_; }
    std::size_t line() const { return line_; }  // 1-based line in the template text
    const std::string& variable() const { return variable_; }

  private:
    std::string template_name_;
    std::size_t line_;
    std::string variable_;
};

// An integer a template variable may hold (printed in decimal); bool and char are left out
// because their spelling is ambiguous.
template <class T>
concept IntegerValue = std::integral<T> && !std::same_as<T, bool> && !std::same_as<T, char>;

// Fills templates in the style of protobuf's io::Printer::Emit.
//
//   printer.emit("actor", R"tmpl(
//       class $name$ {
//           $members$
//       };
//   )tmpl", {{"name", class_name}, {"members", [&] { emit_members(printer); }}});
//
// (Spell inline templates R"tmpl(...)tmpl": the project's clang-format, Google-based, reformats
// R"cc(...)cc" as C++ and would rewrite the template.)
//
// - The template is dedented: its first and last lines are dropped when blank, and the
//   indentation common to its non-blank lines is removed. Every line ends with '\n'.
// - `$name$` is replaced by the variable's value; `$$` is a literal `$`. Values are inserted
//   verbatim (never rescanned): escape text from a .rop file before it gets here (escape.h).
// - A newline inside a string value continues at the indentation of the template line.
// - A callback variable runs while the printer's indentation is that of its template line, so
//   blocks it emits nest where `$block$` stands. On a line of its own, the line is replaced by
//   what the callback printed; inside a line, the callback's final newline is dropped.
// - A line holding only one variable whose expansion is empty disappears (optional pieces).
// - Nested emit() calls (from callbacks) also see the variables of the emit()s enclosing them.
// - Blank lines carry no indentation; output depends only on the inputs (same input, same bytes).
class Printer {
  public:
    using Callback = std::function<void()>;

    struct Var {
        Var(std::string_view var_name, std::string_view text)
            : name(var_name), value(std::string(text)) {}
        Var(std::string_view var_name, Callback callback)
            : name(var_name), value(std::move(callback)) {}
        template <IntegerValue T>
        Var(std::string_view var_name, T number) : name(var_name), value(std::to_string(number)) {}

        std::string name;
        std::variant<std::string, Callback> value;
    };

    // Fills `text` (named `template_name` in errors) with `vars` and appends it to the output.
    void emit(std::string_view template_name, std::string_view text,
              const std::vector<Var>& vars = {});

    // Appends `text` verbatim (no `$` processing) at the current indentation: for a callback
    // that prints a finished line, such as a `#line` directive naming an odd file.
    void print(std::string_view text) { write(text); }

    const std::string& output() const { return out_; }
    std::string take();  // moves the output out and resets the printer

    // The 1-based output line the next character lands on (for `#line` back into the
    // generated file after a directive that points at the .rop source).
    std::size_t line() const { return line_; }
    // The 0-based column the next character lands on (after the indentation at a line's start),
    // and the current indentation: what a callback needs to wrap what it prints.
    std::size_t column() const {
        return at_line_start_ ? indent_.size() : out_.size() - line_begin_;
    }
    std::size_t indent() const { return indent_.size(); }

  private:
    const Var* find(std::string_view name) const;
    void write(std::string_view text);
    void run_callback(const Var& var, std::string_view template_name, std::size_t line);

    std::string out_;
    std::string indent_;
    bool at_line_start_ = true;
    std::size_t line_ = 1;
    std::size_t line_begin_ = 0;                   // offset in out_ where the current line starts
    std::vector<const std::vector<Var>*> scopes_;  // innermost last
    std::vector<const Var*> running_;              // callbacks on the stack
};

// The variables a template uses, sorted and unique; throws CodegenError on a malformed `$`.
std::vector<std::string> template_variables(std::string_view template_name, std::string_view text);

}  // namespace rop::codegen
