/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Linux errno values for the core. They carry a k prefix because a host
 * build may see <errno.h>, whose names are macros. Every fallible core
 * function returns 0 or one of these, negated.
 */
#pragma once

namespace ktl {

enum Errno : int {
	kEPERM = 1,
	kENOENT = 2,
	kEIO = 5,
	kEAGAIN = 11,
	kENOMEM = 12,
	kEACCES = 13,
	kEBUSY = 16,
	kEEXIST = 17,
	kENODEV = 19,
	kEINVAL = 22,
	kENOSPC = 28,
	kERANGE = 34,
	kEPROTO = 71,
	kEOVERFLOW = 75,
	kEMSGSIZE = 90,
	kEOPNOTSUPP = 95,
	kECONNABORTED = 103,
	kECONNRESET = 104,
	kENOTCONN = 107,
	kESHUTDOWN = 108,
	kETIMEDOUT = 110,
	kECONNREFUSED = 111,
};

/*
 * A negative errno as "%pe"'s argument in a log message: the kernel
 * prints its name ("-ENOMEM"), as the host double does.
 */
inline const void *err_arg(int err)
{
	return reinterpret_cast<const void *>(static_cast<long>(err));
}

} // namespace ktl
