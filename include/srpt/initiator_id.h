/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The forms of a node ACL name (srpt_parse_i_port_id). LIO admits a
 * login by comparing the name with the one the login offers (see
 * Channel::open_session_locked()), so the form is all the core checks:
 *   GUID     "5054:00ff:fe4a:0b7b"     four groups of 1..4 hex digits
 *   hex      "0x0000...0b7b" or without "0x": an even number (2..32) of
 *            hex digits
 *   address  IPv4 or IPv6 as the kernel reads it (srpt_os_inet_pton()),
 *            "fe80::5054:ff:fe4a:b7b%srpt0" with a scope
 */
#pragma once

#include <ktl/span.h>
#include <ktl/string.h>
#include <srpt/abi.h>

namespace srpt {

enum class InitiatorIdKind { kGuid, kHex, kAddress };

/* The form of @name; -kEINVAL for a name in none of them. */
[[nodiscard]] int parse_initiator_id(ktl::Span<const char> name, InitiatorIdKind *out);

/* The longest address text: IPv6 with an IPv4 tail, and the NUL. */
using AddressName = ktl::StrBuf<48>;

/*
 * An RDMA/CM initiator's name: its address @addr (network order; IPv4 in
 * the first 4 bytes) as an administrator writes it in an ACL name and as
 * the kernel prints it (%pISc): IPv4 dotted, IPv6 compressed (RFC 5952:
 * lower case, the longest run of two or more zero groups as "::"), an
 * IPv4-mapped or ISATAP address with its IPv4 tail dotted.
 */
void format_address(srpt_inet_family af, const ktl::u8 addr[16], AddressName *out);

} // namespace srpt
