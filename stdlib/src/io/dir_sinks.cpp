// std.io.MarkdownDir and std.io.JsonDir: one file per root, written atomically, named after the
// root with collisions resolved the same way across a resume (the .rop-names index).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <stdexcept>
#include <utility>
#include <vector>

#include "durable_file.h"
#include "rop/stdlib/io.h"

namespace rop::stdlib::io {
namespace detail {

// The names a per-root sink has handed out: "<ordinal>\t<file name>\n" lines, appended and
// fsynced before the file they name is written.
class RootFileNames {
  public:
    // Creates the folder `dir` when missing and opens its index; `sink` names the sink in errors.
    RootFileNames(std::string dir, const char* sink) : dir_(std::move(dir)) {
        if (dir_.empty()) throw std::runtime_error(std::string(sink) + ": empty output folder");
        ensure_directory(dir_);
        path_ = (std::filesystem::path(dir_) / ".rop-names").string();
        fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        if (fd_ < 0) throw std::runtime_error(errno_message("cannot open", path_));
    }
    ~RootFileNames() { ::close(fd_); }
    RootFileNames(const RootFileNames&) = delete;
    RootFileNames& operator=(const RootFileNames&) = delete;

    std::string claim(const rop::RootKey& root, const std::string& extension) {
        const std::string stem = file_stem(root);
        std::string name = stem + extension;
        while (true) {
            auto it = taken_.find(name);
            if (it == taken_.end()) break;
            if (it->second == root.ordinal) return name;
            name = name.substr(0, name.size() - extension.size()) + "-" +
                   std::to_string(root.ordinal) + extension;
        }
        append_durably(fd_, std::to_string(root.ordinal) + "\t" + name + "\n", path_);
        taken_.emplace(name, root.ordinal);
        return name;
    }

    // Writes `content` atomically as the root's file (its name claimed first).
    void write(const rop::RootKey& root, const std::string& extension, const std::string& content) {
        const std::string name = claim(root, extension);
        write_file_atomically((std::filesystem::path(dir_) / name).string(), content);
    }

    std::string checkpoint() const {
        struct stat info{};
        if (::fstat(fd_, &info) != 0) throw std::runtime_error(errno_message("cannot stat", path_));
        return std::to_string(info.st_size);
    }

    // Also removes the temp files a killed writer left in the folder. With a checkpoint (not
    // the "" of a fresh run, which keeps earlier files and only forgets their names), the files
    // named after it are removed too: they belong to roots after the checkpoint, an interrupted
    // run's (rewritten on resume) or a root that failed in another sink (all or nothing).
    void restore(const std::string& token) {
        remove_stale_temp_files(dir_);
        taken_.clear();
        off_t size = 0;
        if (!token.empty()) {
            std::size_t used = 0;
            try {
                size = static_cast<off_t>(std::stoull(token, &used));
            } catch (const std::exception&) {
                used = 0;
            }
            if (used != token.size()) {
                throw std::runtime_error("bad checkpoint '" + token + "' for '" + path_ + "'");
            }
        }
        struct stat info{};
        if (::fstat(fd_, &info) != 0) throw std::runtime_error(errno_message("cannot stat", path_));
        if (info.st_size < size) {
            throw std::runtime_error("'" + path_ + "' is shorter than its checkpoint (" + token +
                                     ")");
        }
        std::string content(static_cast<std::size_t>(info.st_size), '\0');
        std::size_t done = 0;
        while (done < content.size()) {
            const ssize_t got = ::pread(fd_, content.data() + done, content.size() - done,
                                        static_cast<off_t>(done));
            if (got <= 0) throw std::runtime_error(errno_message("cannot read", path_));
            done += static_cast<std::size_t>(got);
        }
        if (!token.empty()) {
            for (const auto& [name, ordinal] : parse(content, static_cast<std::size_t>(size))) {
                // Only names this sink makes (file_stem: no '/', no leading '.').
                if (name.empty() || name.front() == '.' || name.find('/') != std::string::npos)
                    continue;
                std::error_code ignored;  // already gone: nothing to undo
                std::filesystem::remove(std::filesystem::path(dir_) / name, ignored);
            }
        }
        if (::ftruncate(fd_, size) != 0)
            throw std::runtime_error(errno_message("cannot truncate", path_));
        content.resize(static_cast<std::size_t>(size));
        for (auto& [name, ordinal] : parse(content, 0)) taken_[name] = ordinal;
    }

  private:
    // The complete "<ordinal>\t<name>" lines of an index from byte `from` on.
    static std::vector<std::pair<std::string, std::uint64_t>> parse(const std::string& content,
                                                                    std::size_t from) {
        std::vector<std::pair<std::string, std::uint64_t>> names;
        std::size_t at = from;
        while (at < content.size()) {
            const std::size_t end = content.find('\n', at);
            if (end == std::string::npos) break;
            const std::size_t tab = content.find('\t', at);
            if (tab != std::string::npos && tab < end) {
                names.emplace_back(content.substr(tab + 1, end - tab - 1),
                                   std::stoull(content.substr(at, tab - at)));
            }
            at = end + 1;
        }
        return names;
    }

    std::string dir_;
    std::string path_;
    int fd_ = -1;
    std::map<std::string, std::uint64_t> taken_;  // file name -> ordinal of the root that has it
};

}  // namespace detail

std::string file_stem(const rop::RootKey& root) {
    std::string_view name = root.name;
    if (const std::size_t cut = name.find_first_of("?#"); cut != std::string_view::npos) {
        name = name.substr(0, cut);
    }
    while (!name.empty() && name.back() == '/') name.remove_suffix(1);
    if (const std::size_t slash = name.rfind('/'); slash != std::string_view::npos) {
        name = name.substr(slash + 1);
    }
    if (const std::size_t dot = name.rfind('.'); dot != std::string_view::npos && dot > 0) {
        name = name.substr(0, dot);
    }
    std::string stem;
    for (char c : name) {
        const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                           (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
        stem += plain ? c : '_';
    }
    const std::size_t first = stem.find_first_not_of('.');
    stem = first == std::string::npos ? std::string() : stem.substr(first);
    if (stem.empty()) stem = "root-" + std::to_string(root.ordinal);
    return stem;
}

MarkdownDir::MarkdownDir(std::string path, std::string extension)
    : extension_(std::move(extension)),
      names_(std::make_shared<detail::RootFileNames>(std::move(path), "std.io.MarkdownDir")) {}

void MarkdownDir::write(const rop::RootKey& root, std::span<const Markdown> items) {
    std::string content;
    for (const Markdown& item : items) {
        if (!content.empty()) content += "\n\n";
        content += item.text;
    }
    if (!content.empty() && content.back() != '\n') content += '\n';
    names_->write(root, extension_, content);
}

std::string MarkdownDir::checkpoint() { return names_->checkpoint(); }
void MarkdownDir::restore(const std::string& token) { names_->restore(token); }

JsonDir::JsonDir(std::string path, std::string extension)
    : extension_(std::move(extension)),
      names_(std::make_shared<detail::RootFileNames>(std::move(path), "std.io.JsonDir")) {}

void JsonDir::write(const rop::RootKey& root, std::span<const JsonText> items) {
    std::string content;
    if (items.size() == 1) {
        content = items.front().text;
    } else {
        content = "[";
        for (std::size_t i = 0; i < items.size(); ++i) {
            if (i > 0) content += ",\n";
            content += items[i].text;
        }
        content += "]";
    }
    if (content.empty() || content.back() != '\n') content += '\n';
    names_->write(root, extension_, content);
}

std::string JsonDir::checkpoint() { return names_->checkpoint(); }
void JsonDir::restore(const std::string& token) { names_->restore(token); }

}  // namespace rop::stdlib::io
