// rop/stdlib/io.h: where roots come from and where results go. The source std.io.Files lists
// input files; the sinks std.io.Jsonl, std.io.MarkdownDir and std.io.JsonDir commit once per root;
// the record source and sink templates (JsonlSource, CsvSource, JsonlSink, CsvSink) read and
// write a struct of yours, one record per line, through its field table (rop/fields.h).
// rop-link: rop_stdlib_io
//
// Sources and sinks follow docs/stdlib.md (INTERFACES B): a source's first constructor parameter
// is its input (`--input NAME=VALUE` replaces it), a sink's first is its output path (`--output
// NAME=PATH`). Every sink write is atomic and durable when it returns.
#pragma once

#include <rop/records.h>
#include <rop/stdlib/types.h>
#include <rop/udf.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace rop::stdlib::io {

// The input files, one root each. `glob` is one of:
//   - a JSONL manifest (a file ending in .jsonl): one JSON object per line with "path" (or "uri"
//     or "url"), an optional "name", and any other fields as metadata; or a bare JSON string (the
//     path). Relative paths are relative to the manifest's folder. Manifest order is kept; blank
//     lines are skipped.
//   - a directory: its regular files whose names end in `suffix` (all when empty), sorted by path;
//     with `recursive`, subfolders too.
//   - a glob pattern (`in/*.pdf`) or one file path: the matches, sorted by path, filtered by
//     `suffix`. A pattern that matches nothing gives no roots. A match that is a folder (or
//     anything else but a regular file) is skipped with a warning line on stderr naming it.
// Throws std::runtime_error when the input cannot be read (a missing folder or manifest, a bad
// manifest line).
class Files {
  public:
    explicit Files(std::string glob, std::string suffix = "", bool recursive = false);

    std::optional<File> next();
    std::optional<std::size_t> size_hint() const;
    std::string name_of(const File& item) const;

  private:
    std::vector<File> files_;
    std::size_t next_ = 0;
};

// Appends each root's items to one JSONL file, one line per item (the JSON compacted onto one
// line; an item that is not valid JSON is written as a JSON string). A root's lines are one
// write; sync() fsyncs them, once per commit group (RootSinkBinding::sync). checkpoint() is the
// file size; restore("") truncates (a fresh run), restore(size) truncates back to that size
// (resume, or a root another sink failed).
class Jsonl {
  public:
    explicit Jsonl(std::string path);
    ~Jsonl();
    Jsonl(const Jsonl&) = delete;
    Jsonl& operator=(const Jsonl&) = delete;
    Jsonl(Jsonl&& other) noexcept;
    Jsonl& operator=(Jsonl&& other) noexcept;

    void write(const rop::RootKey& root, std::span<const JsonText> items);
    void sync();
    std::string checkpoint();
    void restore(const std::string& token);

  private:
    std::string path_;
    int fd_ = -1;
};

namespace detail {
class RootFileNames;  // which root has which file name (io/dir_sinks.cpp)
}  // namespace detail

// Writes one Markdown file per root into the folder `path`: `<stem>.md`, the stem of the root's
// name (`in/report.pdf` -> `report.md`). Several items of one root are joined by a blank line. A
// stem another root already took gets `-<ordinal>` appended; who took which name is kept in
// `<path>/.rop-names` (one fsynced line per new name), so a resumed run names files the way the
// interrupted one did: checkpoint() is that index's size, restore("") starts it afresh,
// restore(size) reloads it up to that size. Temp file + fsync + rename, so a file is either
// absent or complete.
class MarkdownDir {
  public:
    explicit MarkdownDir(std::string path, std::string extension = ".md");
    void write(const rop::RootKey& root, std::span<const Markdown> items);
    std::string checkpoint();
    void restore(const std::string& token);

  private:
    std::string extension_;
    std::shared_ptr<detail::RootFileNames> names_;
};

// Writes one JSON file per root into the folder `path`: `<stem>.json`, named like MarkdownDir
// (and with the same checkpoint and restore). One item is written as it is; several items become
// a JSON array of them, in ordinal order.
class JsonDir {
  public:
    explicit JsonDir(std::string path, std::string extension = ".json");
    void write(const rop::RootKey& root, std::span<const JsonText> items);
    std::string checkpoint();
    void restore(const std::string& token);

  private:
    std::string extension_;
    std::shared_ptr<detail::RootFileNames> names_;
};

// The file name a per-root sink gives a root: the stem of its name (the last path segment without
// query, fragment and extension), reduced to [A-Za-z0-9._-] (others become '_'); "root-<ordinal>"
// when nothing is left.
std::string file_stem(const rop::RootKey& root);

// ---- records: a struct of yours per line --------------------------------------------------
//
// A record source gives one root per record of a JSONL or CSV file, as the struct T, field by
// field through rop::Fields<T> (rop/fields.h; ropc generates it). Name the instantiation in your
// header and use the alias in the pipeline:
//
//   using OrderRows = rop::stdlib::io::JsonlSource<Order>;   // source rows : Order =
//                                                            //     demo.OrderRows(path:
//                                                            "in/o.jsonl");
//   using OrderOut = rop::stdlib::io::JsonlSink<Order>;      // sink out -> demo.OrderOut(path:
//   ...);
//
// The file is checked whole when the source opens: every bad record (a line that is not JSON, a
// CSV row with the wrong number of cells, a field that is missing or does not fit) is listed as
// `PATH:LINE: field 'NAME': expected ..., got ...`, and the run stops before any root starts (exit
// 2) rather than leave a record out. Then the records are read again one at a time, so memory
// does not grow with the file. A root is named `PATH:LINE` (its record's first line).

namespace detail {

enum class RecordFormat : std::uint8_t { Jsonl, Csv };

// Reads a JSONL file (one JSON object per line; blank lines skipped) or a CSV file (RFC 4180:
// a header row naming the columns, quoted cells with "" for a quote and line breaks inside, CRLF
// or LF) one record at a time, as a rop::record_io::Value Object (CSV: the header's names, Cell
// values). records.cpp.
class RecordReader {
  public:
    // Throws std::runtime_error when the file cannot be opened or a CSV file has no header.
    RecordReader(std::string path, RecordFormat format);
    ~RecordReader();
    RecordReader(RecordReader&&) noexcept;
    RecordReader& operator=(RecordReader&&) noexcept;

    // The next record; nullopt at the end. A record that cannot be parsed (not JSON, not a JSON
    // object, a row whose cell count differs from the header's, an unterminated quote) throws
    // std::runtime_error with the problem; the reader is then past it, at the next record.
    std::optional<rop::record_io::Value> next();
    std::size_t line() const;  // the 1-based line the last record starts on
    const std::string& path() const;

  private:
    struct State;
    std::unique_ptr<State> state_;
};

// "N bad records in PATH:" and the first `errors` (each "PATH:LINE: problem"), one per line,
// then "... and M more" when `total` is larger.
std::string bad_records_message(const std::string& path, const std::vector<std::string>& errors,
                                std::size_t total);

// The source half the record sources share: the check pass, then reading record by record.
template <class T>
class TypedRecordReader {
  public:
    TypedRecordReader(std::string path, RecordFormat format) {
        constexpr std::size_t kListed = 20;
        RecordReader check(path, format);
        std::vector<std::string> errors;
        std::size_t bad = 0;
        for (;;) {
            std::optional<rop::record_io::Value> record;
            try {
                record = check.next();
                if (!record) break;
                T value{};
                rop::record_io::decode_fields(*record, value);
                ++count_;
            } catch (const std::exception& e) {
                if (++bad <= kListed) {
                    errors.push_back(check.path() + ":" + std::to_string(check.line()) + ": " +
                                     e.what());
                }
            }
        }
        if (bad > 0) throw std::runtime_error(bad_records_message(path, errors, bad));
        reader_.emplace(std::move(path), format);
    }

    std::optional<T> next() {
        std::optional<rop::record_io::Value> record = reader_->next();
        if (!record) return std::nullopt;
        T value{};
        try {
            rop::record_io::decode_fields(*record, value);
        } catch (const std::exception& e) {
            throw std::runtime_error(name() + ": " + e.what() + " (the file changed while read)");
        }
        return value;
    }
    std::size_t count() const { return count_; }
    std::string name() const { return reader_->path() + ":" + std::to_string(reader_->line()); }

  private:
    std::optional<RecordReader> reader_;
    std::size_t count_ = 0;
};

// The line file the record sinks append to: unordered, each root's lines as it commits (one
// write; sync() fsyncs; checkpoint() is the size), or in source order (`ordered`): a root that
// finishes before an earlier one waits, in memory and in `PATH.pending` (appended with the root's
// ordinal, so a resumed run reloads it), until every earlier root is written or skipped (a root
// with nothing for this sink: failed, dropped, no items). checkpoint() is then "SIZE/NEXT/
// PENDING": the output's size, the next ordinal to write and the pending file's size; restore
// puts all three back and reloads what waited. A root older than what is written already (one
// --retry-failed runs again) is appended at once. records.cpp.
class RecordLineFile {
  public:
    RecordLineFile(std::string path, bool ordered);
    ~RecordLineFile();
    RecordLineFile(const RecordLineFile&) = delete;
    RecordLineFile& operator=(const RecordLineFile&) = delete;

    void write(std::uint32_t ordinal, std::string lines);
    void skip(std::uint32_t ordinal);
    void sync();
    std::string checkpoint();
    // `preamble` (a CSV header row) is written at the top of a fresh file (token "").
    void restore(const std::string& token, std::string_view preamble = {});
    std::size_t waiting() const { return held_.size(); }  // ordered: roots held back

  private:
    void append(std::string_view lines);
    void drain();

    std::string path_;
    bool ordered_;
    int fd_ = -1;
    int pending_fd_ = -1;
    std::uint32_t next_ = 0;
    std::map<std::uint32_t, std::string> held_;  // ordinal -> its lines ("" for a skipped root)
};

}  // namespace detail

// One root per line of a JSONL file: each line a JSON object whose members fill T's fields by
// name (strings, numbers, true/false, null or a missing member for std::optional, arrays for
// std::vector, objects for nested structs with rop::Fields); members T has no field for are
// ignored. T is default constructible.
template <class T>
class JsonlSource {
  public:
    // (The checks are in the constructors, not the classes: ropc instantiates the class while
    // reading the headers, before it writes rop::Fields<T>.)
    explicit JsonlSource(std::string path)
        : records_(std::move(path), detail::RecordFormat::Jsonl) {
        static_assert(rop::HasFields<T>, "JsonlSource<T>: T needs rop::Fields<T> (rop/fields.h)");
    }

    std::optional<T> next() { return records_.next(); }
    std::optional<std::size_t> size_hint() const { return records_.count(); }
    // The record that next() returned last: `PATH:LINE`.
    std::string name_of(const T& /*item*/) const { return records_.name(); }

  private:
    detail::TypedRecordReader<T> records_;
};

// One root per row of a CSV file (RFC 4180) with a header row naming the columns: each cell is
// read as its field's type (an empty cell is std::nullopt for an optional field, "" for a string).
// Fields are scalars or optional scalars (a std::vector or a nested struct does not compile:
// CSV has no nesting); a column T has no field for is ignored, a missing one is an error unless
// its field is optional.
template <class T>
class CsvSource {
  public:
    explicit CsvSource(std::string path) : records_(std::move(path), detail::RecordFormat::Csv) {
        static_assert(rop::HasFields<T>, "CsvSource<T>: T needs rop::Fields<T> (rop/fields.h)");
        static_assert(rop::record_io::csv_record<T>(),
                      "CsvSource<T>: CSV fields are text, numbers, bool or std::optional of them "
                      "(no std::vector, no nested struct)");
    }

    std::optional<T> next() { return records_.next(); }
    std::optional<std::size_t> size_hint() const { return records_.count(); }
    std::string name_of(const T& /*item*/) const { return records_.name(); }

  private:
    detail::TypedRecordReader<T> records_;
};

// Appends each root's items to a JSONL file, one JSON object per item with T's field names in
// the table's order. With `ordered`, lines appear in the source order of their roots though roots
// finish out of order (see detail::RecordLineFile); without, in the order roots commit.
template <class T>
class JsonlSink {
  public:
    explicit JsonlSink(std::string path, bool ordered = false)
        : file_(std::make_unique<detail::RecordLineFile>(std::move(path), ordered)) {
        static_assert(rop::HasFields<T>, "JsonlSink<T>: T needs rop::Fields<T> (rop/fields.h)");
    }

    void write(const rop::RootKey& root, std::span<const T> items) {
        std::string lines;
        for (const T& item : items) {
            rop::record_io::append_json(lines, item);
            lines += '\n';
        }
        file_->write(root.ordinal, std::move(lines));
    }
    // A root with nothing for this sink: an ordered file need not wait for it.
    void skip(const rop::RootKey& root) { file_->skip(root.ordinal); }
    void sync() { file_->sync(); }
    std::string checkpoint() { return file_->checkpoint(); }
    void restore(const std::string& token) { file_->restore(token); }

  private:
    std::unique_ptr<detail::RecordLineFile> file_;
};

// Appends each root's items to a CSV file (RFC 4180), one row per item, after a header row of
// T's field names that a fresh run writes: text quoted when it holds a comma, a quote, a line
// break or leading or trailing spaces (a quote doubled), numbers as the shortest text that reads
// back the same, true/false, std::nullopt as an empty cell. Fields are scalars or optional
// scalars, as CsvSource reads them. `ordered`, checkpoint and restore as JsonlSink.
template <class T>
class CsvSink {
  public:
    explicit CsvSink(std::string path, bool ordered = false)
        : file_(std::make_unique<detail::RecordLineFile>(std::move(path), ordered)) {
        static_assert(rop::HasFields<T>, "CsvSink<T>: T needs rop::Fields<T> (rop/fields.h)");
        static_assert(rop::record_io::csv_record<T>(),
                      "CsvSink<T>: CSV fields are text, numbers, bool or std::optional of them "
                      "(no std::vector, no nested struct)");
        rop::for_each_field<T>([this](const auto& f) {
            if (!header_.empty()) header_ += ',';
            rop::record_io::append_csv(header_, std::string(f.name));
        });
        header_ += '\n';
    }

    void write(const rop::RootKey& root, std::span<const T> items) {
        std::string lines;
        for (const T& item : items) {
            bool first = true;
            rop::for_each_field<T>([&](const auto& f) {
                if (!first) lines += ',';
                first = false;
                rop::record_io::append_csv(lines, item.*f.member);
            });
            lines += '\n';
        }
        file_->write(root.ordinal, std::move(lines));
    }
    void skip(const rop::RootKey& root) { file_->skip(root.ordinal); }
    void sync() { file_->sync(); }
    std::string checkpoint() { return file_->checkpoint(); }
    void restore(const std::string& token) { file_->restore(token, header_); }

  private:
    std::unique_ptr<detail::RecordLineFile> file_;
    std::string header_;
};

}  // namespace rop::stdlib::io
