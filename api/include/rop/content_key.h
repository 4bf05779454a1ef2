// rop/content_key.h: what identifies an item's content for the result store (`--cache DIR`,
// docs/runtime.md "Re-runs"). A Grain's key holds its inputs' content: an item's Codec bytes, so
// two items with the same bytes are the same input whatever produced them (the early cutoff).
// A type whose bytes do not hold all of its content adds the rest with rop::ContentKey: the
// stdlib's File is a path, and the next operator reads the file, so its content is also the
// file's bytes (or, with --trust-mtime, its path, size and modification time):
//
//   template <> struct rop::ContentKey<rop::stdlib::File> {
//       static void add(const rop::stdlib::File& file, rop::ContentSink& key) {
//           key.file(file.path);
//       }
//   };
//
// Standard headers only, like <rop/codec.h>.
#pragma once

#include <string>
#include <string_view>

namespace rop {

// Where an item's content goes; the runtime hashes what it is given.
class ContentSink {
  public:
    virtual void bytes(std::string_view data) = 0;
    // The content of the file at `path`: its bytes, streamed (with --trust-mtime: its path, size
    // and modification time). A file that cannot be read adds its error, so that it becomes
    // readable again as a different input.
    virtual void file(const std::string& path) = 0;

  protected:
    ~ContentSink() = default;
};

// Specialize with `static void add(const T& value, ContentSink& key)`: what it adds follows the
// item's Codec bytes in the key (a type without a Codec: its only content).
template <class T>
struct ContentKey;

template <class T>
concept has_content_key =
    requires(const T& value, ContentSink& key) { ContentKey<T>::add(value, key); };

}  // namespace rop
