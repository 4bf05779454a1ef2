// rop/stdlib/io.h: where roots come from and where results go. The source std.io.Files lists
// input files; the sinks std.io.Jsonl, std.io.MarkdownDir and std.io.JsonDir commit once per root.
// rop-link: rop_stdlib_io
//
// Sources and sinks follow docs/stdlib.md (INTERFACES B): a source's first constructor parameter
// is its input (`--input NAME=VALUE` replaces it), a sink's first is its output path (`--output
// NAME=PATH`). Every sink write is atomic and durable when it returns.
#pragma once

#include <rop/stdlib/types.h>
#include <rop/udf.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
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
//     `suffix`. A pattern that matches nothing gives no roots.
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

}  // namespace rop::stdlib::io
