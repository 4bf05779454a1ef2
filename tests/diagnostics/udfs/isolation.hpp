// UDFs for the E0306 and E0512 goldens (E0306_isolation_process.rop, E0512_mpi_without_codec.rop)
// and clean/isolated.rop: an item type with a field that has no codec, and types that have codecs.
// The goldens quote lines of this file: append, do not insert.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <rop/udf.h>

namespace isolation {

struct Doc {
    std::string path;
};

class Cache;

struct Page {
    int number = 0;
    std::string text;
    std::shared_ptr<Cache> cache;
};

struct Entry {
    std::string word;
    std::vector<int> pages;
};

struct Index {
    std::map<std::string, Entry> entries;
    std::optional<std::string> title;
};

class Files {
  public:
    explicit Files(std::string glob);
    std::optional<Doc> next();
};

class Jsonl {
  public:
    explicit Jsonl(std::string path);
    void write(const rop::RootKey& root, std::span<const std::string> items);
};

Page render(const Doc& doc);
bool keep(const Page& page);
std::string show(const Page& page);
Index index(const Doc& doc);
std::string print(const Index& index);

}  // namespace isolation

// Appended for E0306_pooled_call.rop: a pool's class, whose Calls run in its processes.
namespace isolation {
class Renderer {
  public:
    Renderer();
    Page render(const Doc& doc);
};
}  // namespace isolation
