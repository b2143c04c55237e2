/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * SRP information units (T10 SRP r16a, with the SRP-2 immediate data
 * extension): opcodes, field byte offsets, flags and codes. Fields are
 * big endian; offsets are from the start of the IU.
 */
#pragma once

#include <srpt/types.h>

namespace srpt::srp {


/* Opcodes (byte 0 of every IU). */
constexpr u8 kLoginReq = 0x00;
constexpr u8 kTskMgmt = 0x01;
constexpr u8 kCmd = 0x02;
constexpr u8 kILogout = 0x03;
constexpr u8 kLoginRsp = 0xc0;
constexpr u8 kRsp = 0xc1;
constexpr u8 kLoginRej = 0xc2;
constexpr u8 kTLogout = 0x80;
constexpr u8 kCredReq = 0x81;
constexpr u8 kAerReq = 0x82;
constexpr u8 kCredRsp = 0x41;
constexpr u8 kAerRsp = 0x42;

/* Buffer formats (login REQ_BUF_FMT / SUP_BUF_FMT). */
constexpr u16 kBufFmtDirect = 1 << 1;
constexpr u16 kBufFmtIndirect = 1 << 2;

/* Data descriptor formats (SRP_CMD BUF_FMT nibbles). */
constexpr u8 kDescNone = 0;
constexpr u8 kDescDirect = 1;
constexpr u8 kDescIndirect = 2;
constexpr u8 kDescImmediate = 3;

/* SRP_LOGIN_REQ as carried by IB/CM (64 bytes). */
namespace login_req {
constexpr size_t kSize = 64;
constexpr size_t kOpcode = 0;
constexpr size_t kTag = 8;
constexpr size_t kReqItIuLen = 16;
constexpr size_t kReqBufFmt = 24;
constexpr size_t kReqFlags = 26;
constexpr size_t kImmDataOffset = 28;
constexpr size_t kInitiatorPortId = 32;
constexpr size_t kTargetPortId = 48;
} // namespace login_req

/* The RDMA/CM form of the login request (struct srp_login_req_rdma, 56 bytes). */
namespace login_req_rdma {
constexpr size_t kSize = 56;
constexpr size_t kTag = 0;
constexpr size_t kReqBufFmt = 8;
constexpr size_t kReqFlags = 10;
constexpr size_t kOpcode = 11;
constexpr size_t kReqItIuLen = 12;
constexpr size_t kInitiatorPortId = 16;
constexpr size_t kTargetPortId = 32;
constexpr size_t kImmDataOffset = 48;
} // namespace login_req_rdma

/* REQ_FLAGS of a login request. */
constexpr u8 kMultiChanActionMask = 0x03;
constexpr u8 kMultiChanSingle = 0;
constexpr u8 kMultiChanMulti = 1;
constexpr u8 kImmedRequested = 0x80;

/* SRP_LOGIN_RSP (52 bytes). */
namespace login_rsp {
constexpr size_t kSize = 52;
constexpr size_t kReqLimDelta = 4;
constexpr size_t kTag = 8;
constexpr size_t kMaxItIuLen = 16;
constexpr size_t kMaxTiIuLen = 20;
constexpr size_t kBufFmt = 24;
constexpr size_t kRspFlags = 26;
} // namespace login_rsp

/* RSP_FLAGS of a login response. */
constexpr u8 kLoginRspMultiChanNoChannels = 0x0;
constexpr u8 kLoginRspMultiChanTerminated = 0x1;
constexpr u8 kLoginRspMultiChanMaintained = 0x2;
constexpr u8 kLoginRspImmedSupported = 0x80;

/* SRP_LOGIN_REJ (32 bytes). */
namespace login_rej {
constexpr size_t kSize = 32;
constexpr size_t kReason = 4;
constexpr size_t kTag = 8;
constexpr size_t kBufFmt = 24;
} // namespace login_rej

/* SRP_LOGIN_REJ REASON codes. */
enum class RejectReason : u32 {
	kUnableEstablishChannel = 0x00010000,
	kInsufficientResources = 0x00010001,
	kReqItIuLengthTooLarge = 0x00010002,
	kUnableAssociateChannel = 0x00010003,
	kUnsupportedDescriptorFormat = 0x00010004,
	kMultiChannelUnsupported = 0x00010005,
	kChannelLimitReached = 0x00010006,
};

/*
 * SRP_CMD (48 bytes + additional CDB + descriptors), SRP r16a table 18:
 * 0 opcode, 1 sol_not, 2-4 reserved, 5 buf_fmt, 6 data-out descriptor
 * count, 7 data-in descriptor count, 8-15 tag, 16-19 reserved, 20-27 LUN,
 * 28 reserved, 29 task attribute, 30 reserved, 31 additional CDB length,
 * 32-47 CDB, 48.. additional CDB, then the data buffer descriptors.
 */
namespace cmd {
constexpr size_t kSize = 48;
constexpr size_t kSolNot = 1;
constexpr size_t kBufFmt = 5;
constexpr size_t kDataOutDescCnt = 6;
constexpr size_t kDataInDescCnt = 7;
constexpr size_t kTag = 8;
constexpr size_t kLun = 20;
constexpr size_t kTaskAttr = 29;
constexpr size_t kAddCdbLen = 31;
constexpr size_t kCdb = 32;
constexpr size_t kCdbSize = 16;
constexpr size_t kAddData = 48;
} // namespace cmd

/* SOL_NOT bits of SRP_CMD and SRP_TSK_MGMT. */
constexpr u8 kScSolNt = 0x02;
constexpr u8 kUcSolNt = 0x04;

/* TASK ATTRIBUTE of SRP_CMD (low 3 bits). */
constexpr u8 kTaskSimple = 0;
constexpr u8 kTaskHeadOfQueue = 1;
constexpr u8 kTaskOrdered = 2;
constexpr u8 kTaskAca = 4;

/* A direct data buffer descriptor (16 bytes). */
namespace direct_desc {
constexpr size_t kSize = 16;
constexpr size_t kVa = 0;
constexpr size_t kKey = 8;
constexpr size_t kLen = 12;
} // namespace direct_desc

/* An indirect data buffer descriptor header (20 bytes, then the table). */
namespace indirect_desc {
constexpr size_t kHeaderSize = 20;
constexpr size_t kTableDesc = 0;	/* a direct descriptor of the table */
constexpr size_t kTotalLen = 16;
} // namespace indirect_desc

/* The immediate data descriptor (4 bytes: the data length). */
constexpr size_t kImmDescSize = 4;

/* SRP_TSK_MGMT (48 bytes). */
namespace tsk_mgmt {
constexpr size_t kSize = 48;
constexpr size_t kSolNot = 1;
constexpr size_t kTag = 8;
constexpr size_t kLun = 20;
constexpr size_t kFunction = 30;
constexpr size_t kTaskTag = 32;
} // namespace tsk_mgmt

/* TASK MANAGEMENT FUNCTION codes. */
constexpr u8 kTmfAbortTask = 0x01;
constexpr u8 kTmfAbortTaskSet = 0x02;
constexpr u8 kTmfClearTaskSet = 0x04;
constexpr u8 kTmfLunReset = 0x08;
constexpr u8 kTmfClearAca = 0x40;

/* SRP_RSP (36 bytes + response data + sense data). */
namespace rsp {
constexpr size_t kSize = 36;
constexpr size_t kSolNot = 1;
constexpr size_t kReqLimDelta = 4;
constexpr size_t kTag = 8;
constexpr size_t kFlags = 18;
constexpr size_t kStatus = 19;
constexpr size_t kDataOutResCnt = 20;
constexpr size_t kDataInResCnt = 24;
constexpr size_t kSenseDataLen = 28;
constexpr size_t kRespDataLen = 32;
constexpr size_t kData = 36;
} // namespace rsp

/* SRP_RSP FLAGS. */
constexpr u8 kRspValid = 1 << 0;
constexpr u8 kSnsValid = 1 << 1;
constexpr u8 kDoOver = 1 << 2;
constexpr u8 kDoUnder = 1 << 3;
constexpr u8 kDiOver = 1 << 4;
constexpr u8 kDiUnder = 1 << 5;
constexpr u8 kSolNt = 0x01;	/* SRP_RSP SOL_NOT: solicited notification */

/* Task management RSP_CODE values (response data byte 3). */
constexpr u8 kTmfComplete = 0x00;
constexpr u8 kTmfNotSupported = 0x04;
constexpr u8 kTmfFailed = 0x05;

/* Smallest request IU length an initiator may ask for. */
constexpr u32 kMinItIuLen = 64;

} // namespace srpt::srp
