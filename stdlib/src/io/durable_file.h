// Durable file writes for the sinks: write a whole file atomically (temp + fsync + rename + fsync
// of the folder), append a chunk with one write + fsync.
#pragma once

#include <string>
#include <string_view>

namespace rop::stdlib::io::detail {

// Creates `dir` and its parents when missing; throws std::runtime_error naming it on failure.
void ensure_directory(const std::string& dir);

// Replaces `path` with `content` atomically: a reader sees the old file or the whole new one.
void write_file_atomically(const std::string& path, std::string_view content);

// Appends `content` to the open descriptor with as many write() calls as it takes.
void append_all(int fd, std::string_view content, const std::string& path);
// append_all, then fsync.
void append_durably(int fd, std::string_view content, const std::string& path);

// Removes the temp files write_file_atomically left in `dir` when a process was killed between
// creating and renaming them (`.NAME.tmp-PID` of a PID that no longer runs). Best effort.
void remove_stale_temp_files(const std::string& dir);

// fsyncs the folder holding `path` so a rename or a new file survives a crash.
void sync_parent_directory(const std::string& path);

// "<what> '<path>': <strerror(errno)>", for the exceptions above.
std::string errno_message(const std::string& what, const std::string& path);

}  // namespace rop::stdlib::io::detail
