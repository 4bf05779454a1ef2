// The bytes of one result store file (result_store.h): a fixed header, then the payload. The
// header lets a reader tell a sound file from a torn or damaged one without trusting anything
// the file says about itself beyond what it can check:
//   offset  0   8 bytes  magic "ROPSTORE"
//           8   4        format version, little-endian (kStoreFormatVersion)
//          12   4        kind, little-endian (StoreRecordKind)
//          16   8        payload length, little-endian
//          24  16        the record's key: a sound file copied under another key's name is corrupt
//          40  16        XXH3-128 of the payload (digest.h)
//          56            the payload
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "cache/digest.h"

namespace rop::runtime::detail {

inline constexpr std::uint32_t kStoreFormatVersion = 1;
inline constexpr std::size_t kStoreHeaderBytes = 56;

enum class StoreRecordKind : std::uint32_t { Result = 1, Manifest = 2 };

std::string encode_store_header(StoreRecordKind kind, const Digest& key, std::string_view payload);

enum class StoreRecordVerdict {
    Sound,
    Foreign,  // another format version (another rop): a miss, left alone, overwritten by a put
    Corrupt,  // torn or damaged: never used
};

struct StoreRecordCheck {
    StoreRecordVerdict verdict = StoreRecordVerdict::Corrupt;
    std::string reason;  // what is wrong, for a Corrupt or Foreign one
};

// Checks a record's header (`header`: the file's first bytes, at most kStoreHeaderBytes of them)
// against what the reader expects and the file's size; the payload is checked by
// check_store_payload once read.
StoreRecordCheck check_store_header(std::string_view header, std::uint64_t file_size,
                                    StoreRecordKind kind, const Digest& key);
// Whether `payload` is what the (sound) header vouches for: its XXH3-128.
StoreRecordCheck check_store_payload(std::string_view header, std::string_view payload);

// What a header says of its record, for a pass over a pack's records (result_store_packs.h):
// the payload's length and the key. Nothing when `header` is short or not a header of this
// format and kind (the pass stops there).
struct StoreRecordHead {
    std::uint64_t length = 0;
    Digest key;
};
std::optional<StoreRecordHead> peek_store_header(std::string_view header, StoreRecordKind kind);

}  // namespace rop::runtime::detail
