#include "cache/result_store_record.h"

#include <cstring>

namespace rop::runtime::detail {

namespace {

constexpr char kMagic[8] = {'R', 'O', 'P', 'S', 'T', 'O', 'R', 'E'};
constexpr std::size_t kVersionAt = 8, kKindAt = 12, kLengthAt = 16, kKeyAt = 24, kHashAt = 40;
static_assert(kHashAt + 16 == kStoreHeaderBytes);

void put_le(std::string& out, std::size_t at, std::uint64_t value, int bytes) {
    for (int i = 0; i < bytes; ++i) out[at + i] = static_cast<char>(value >> (8 * i));
}

std::uint64_t get_le(std::string_view in, std::size_t at, int bytes) {
    std::uint64_t value = 0;
    for (int i = 0; i < bytes; ++i) {
        value |= std::uint64_t{static_cast<unsigned char>(in[at + i])} << (8 * i);
    }
    return value;
}

void put_digest(std::string& out, std::size_t at, const Digest& digest) {
    std::memcpy(out.data() + at, digest.bytes.data(), digest.bytes.size());
}

Digest get_digest(std::string_view in, std::size_t at) {
    Digest digest;
    std::memcpy(digest.bytes.data(), in.data() + at, digest.bytes.size());
    return digest;
}

StoreRecordCheck corrupt(std::string reason) {
    return {StoreRecordVerdict::Corrupt, std::move(reason)};
}

}  // namespace

std::string encode_store_header(StoreRecordKind kind, const Digest& key, std::string_view payload) {
    std::string header(kStoreHeaderBytes, '\0');
    std::memcpy(header.data(), kMagic, sizeof kMagic);
    put_le(header, kVersionAt, kStoreFormatVersion, 4);
    put_le(header, kKindAt, static_cast<std::uint32_t>(kind), 4);
    put_le(header, kLengthAt, payload.size(), 8);
    put_digest(header, kKeyAt, key);
    put_digest(header, kHashAt, digest_of(payload));
    return header;
}

StoreRecordCheck check_store_header(std::string_view header, std::uint64_t file_size,
                                    StoreRecordKind kind, const Digest& key) {
    if (header.size() < kStoreHeaderBytes) {
        return corrupt("short: " + std::to_string(header.size()) + " of the header's " +
                       std::to_string(kStoreHeaderBytes) + " bytes");
    }
    if (std::memcmp(header.data(), kMagic, sizeof kMagic) != 0) return corrupt("bad magic");
    const std::uint64_t version = get_le(header, kVersionAt, 4);
    if (version != kStoreFormatVersion) {
        return {StoreRecordVerdict::Foreign, "format version " + std::to_string(version) +
                                                 ", this binary reads " +
                                                 std::to_string(kStoreFormatVersion)};
    }
    if (get_le(header, kKindAt, 4) != static_cast<std::uint32_t>(kind)) {
        return corrupt("another kind of record");
    }
    const std::uint64_t length = get_le(header, kLengthAt, 8);
    if (file_size != kStoreHeaderBytes + length) {
        return corrupt("the header says " + std::to_string(length) +
                       " payload bytes, the file holds " +
                       std::to_string(file_size - kStoreHeaderBytes));
    }
    if (!(get_digest(header, kKeyAt) == key)) {
        return corrupt("written under key " + get_digest(header, kKeyAt).hex());
    }
    return {StoreRecordVerdict::Sound, {}};
}

StoreRecordCheck check_store_payload(std::string_view header, std::string_view payload) {
    if (!(digest_of(payload) == get_digest(header, kHashAt))) {
        return corrupt("payload hash mismatch");
    }
    return {StoreRecordVerdict::Sound, {}};
}

std::optional<StoreRecordHead> peek_store_header(std::string_view header, StoreRecordKind kind) {
    if (header.size() < kStoreHeaderBytes ||
        std::memcmp(header.data(), kMagic, sizeof kMagic) != 0 ||
        get_le(header, kVersionAt, 4) != kStoreFormatVersion ||
        get_le(header, kKindAt, 4) != static_cast<std::uint32_t>(kind)) {
        return std::nullopt;
    }
    return StoreRecordHead{get_le(header, kLengthAt, 8), get_digest(header, kKeyAt)};
}

}  // namespace rop::runtime::detail
