// IdWindow<T>: a table indexed by ids that only grow, whose oldest entries can be released. The
// lineage store keeps a row per entity (and per entity of a Domain) for the whole life of its
// root; once a run of the oldest rows all belong to committed roots, release_to() drops them, so
// the tables hold the roots in flight instead of the whole run. Ids are never reused: an id
// below base() is gone and must not be read (the store guards its callers with released()).
//
// Storage is one vector whose front may hold released rows until they are as many as the live
// ones (and 64 KiB at least); then they are erased and the slack is given back, so each row is
// moved O(1) times on average and memory stays within about twice the rows in the window.
#pragma once

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

namespace rop::runtime::detail {

[[noreturn]] void throw_released(std::size_t id, std::size_t base);  // lineage.cpp

template <class T>
class IdWindow {
  public:
    // Reading a released row is a bug (a fence or a released() check is missing): it throws
    // ContractError instead of reading a row that belongs to nothing or to no one any more.
    T& operator[](std::size_t id) {
        if (id < base_) [[unlikely]]
            throw_released(id, base_);
        return rows_[id - stored_from_];
    }
    const T& operator[](std::size_t id) const {
        if (id < base_) [[unlikely]]
            throw_released(id, base_);
        return rows_[id - stored_from_];
    }
    void push_back(T row) { rows_.push_back(std::move(row)); }
    template <class... Args>
    T& emplace_back(Args&&... args) {
        return rows_.emplace_back(std::forward<Args>(args)...);
    }
    std::size_t base() const { return base_; }                       // first id still held
    std::size_t end() const { return stored_from_ + rows_.size(); }  // the next id
    bool released(std::size_t id) const { return id < base_; }
    std::size_t capacity_bytes() const { return rows_.capacity() * sizeof(T); }
    const std::vector<T>& stored() const { return rows_; }  // may start with released rows

    // Releases every id below `id` (ids already released stay released).
    void release_to(std::size_t id) {
        if (id <= base_) return;
        base_ = id;
        const std::size_t dead = base_ - stored_from_;
        if (dead < kMinCompact || dead < rows_.size() - dead) return;
        rows_.erase(rows_.begin(), rows_.begin() + static_cast<std::ptrdiff_t>(dead));
        stored_from_ = base_;
        if (rows_.capacity() > 2 * rows_.size() + kMinCompact) rows_.shrink_to_fit();
    }

  private:
    // Released rows are kept until they are at least this many (64 KiB of them, 64 rows at
    // least) and as many as the live ones.
    static constexpr std::size_t kMinCompact = std::max<std::size_t>(64, 65536 / sizeof(T));
    std::vector<T> rows_;
    std::size_t base_ = 0;         // ids below it are released
    std::size_t stored_from_ = 0;  // the id of rows_[0] (<= base_)
};

}  // namespace rop::runtime::detail
