// Diagnostics are values: an id from the catalogue, a severity, a primary range, a message, notes
// with their own ranges, and an optional fix-it. One DiagnosticEngine collects them for a run.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "support/source_manager.h"

namespace rop {

enum class Severity { Note, Warning, Error, Fatal };

enum class DiagId {
#define ROP_DIAG(name, code, severity, summary) name,
#include "support/diag_catalog.def"
#undef ROP_DIAG
};

struct DiagInfo {
    DiagId id;
    std::string_view code;     // "E0100"
    Severity severity;         // default severity (warnings may be promoted by -Werror)
    std::string_view summary;  // short, stable; the SARIF rule's shortDescription
    std::string_view name;     // the enumerator, e.g. "UndefinedName"; the SARIF rule name
};

const char* to_string(Severity severity);  // "note", "warning", "error", "fatal error"

const DiagInfo& diag_info(DiagId id);
const std::vector<DiagInfo>& diag_catalog();
std::optional<DiagId> diag_by_code(std::string_view code);

struct FixIt {
    SourceRange range;  // text to replace (empty range = insertion point)
    std::string replacement;
};

struct Note {
    std::optional<SourceRange> range;  // a note may point nowhere (e.g. a general hint)
    std::string message;
};

struct Diagnostic {
    DiagId id;
    Severity severity;
    SourceRange range;
    std::string message;
    std::vector<Note> notes;
    std::optional<FixIt> fixit;
};

// A failure of the run itself rather than a finding in a file it read: an input that could not
// be read (F0002, exit status 2). It has no source range; the renderers name its file.
struct RunFailure {
    std::string file;
    std::string message;  // "cannot read 'x.rop': No such file or directory"
};

class DiagnosticEngine {
  public:
    explicit DiagnosticEngine(const SourceManager& sources) : sources_(sources) {}

    // Reports a diagnostic with the catalogue's severity; returns it so callers can add notes.
    // The reference is valid until the next report().
    Diagnostic& report(DiagId id, SourceRange range, std::string message);

    void set_warnings_as_errors(bool on) { werror_ = on; }
    void set_max_errors(std::size_t n) { max_errors_ = n; }

    bool has_errors() const;
    std::size_t error_count() const;
    std::size_t warning_count() const;

    // Sorted by file and position, duplicates (same id, range, message) removed, capped at
    // max_errors (one F0001 is appended when the cap cut the list; 0 = no cap). Severities are
    // the effective ones: with -Werror a warning comes back as an error.
    std::vector<Diagnostic> finish() const;

    const SourceManager& sources() const { return sources_; }

  private:
    Severity effective(Severity severity) const;

    const SourceManager& sources_;
    std::vector<Diagnostic> diags_;
    bool werror_ = false;
    std::size_t max_errors_ = 50;
};

// Renderers. Text is exactly GCC/Clang's shape:
//   file:line:col: error: message [E0100]
//    12 | ocr = map pagez with ocr;
//       |           ^~~~~
//   file:line:col: note: ...
// Columns everywhere are SourceManager's (code points). A source line longer than the text
// renderer shows is cut to a window around the caret, "..." marking each cut end.
std::string render_text(const SourceManager& sources, const std::vector<Diagnostic>& diags,
                        bool color = false);
// The text form of a failed run: "ropc: fatal error: cannot read 'x.rop': ... [F0002]".
std::string render_text(const RunFailure& failure);
// JSON: failures come first, as F0002 entries without line or column.
std::string render_json(const SourceManager& sources, const std::vector<Diagnostic>& diags,
                        const std::vector<RunFailure>& failures = {});
// SARIF: failures are tool execution notifications of the run's invocation, whose
// executionSuccessful is false exactly when there are any (findings are results, not failures).
std::string render_sarif(const SourceManager& sources, const std::vector<Diagnostic>& diags,
                         std::string_view tool_version,
                         const std::vector<RunFailure>& failures = {});

}  // namespace rop
