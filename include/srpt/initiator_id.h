/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Initiator port identifiers as written in node ACL names
 * (srpt_parse_i_port_id). Accepted forms:
 *   GUID   "5054:00ff:fe4a:0b7b"      four groups of 1..4 hex digits
 *   hex    "0x0000...0b7b" or without "0x": an even number (2..32) of hex
 *          digits, left-padded with zero bytes to 16 bytes
 *   IPv4   "192.168.122.76"
 *   IPv6   "fe80::5054:ff:fe4a:b7b", optionally with "%scope"
 */
#pragma once

#include <ktl/span.h>
#include <ktl/types.h>

namespace srpt {

enum class InitiatorIdKind { kGuid, kHex, kIpv4, kIpv6 };

struct InitiatorId {
	InitiatorIdKind kind = InitiatorIdKind::kHex;
	ktl::u8 id[16] = {};	/* GUID in bytes 8..15; IPv4 in bytes 12..15 */
};

/* Returns 0, or -kEINVAL for a name in none of the forms. */
[[nodiscard]] int parse_initiator_id(ktl::Span<const char> name, InitiatorId *out);

/* Parsers of the address forms alone; exposed for tests. */
[[nodiscard]] bool parse_ipv4(ktl::Span<const char> s, ktl::u8 out[4]);
[[nodiscard]] bool parse_ipv6(ktl::Span<const char> s, ktl::u8 out[16]);

} // namespace srpt
