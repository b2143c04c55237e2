/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Conversions between core objects and the opaque handles of the C ABI.
 * A handle is the object's address; nothing else crosses.
 */
#pragma once

#include <srpt/abi.h>

namespace srpt {

template <typename Handle, typename T> Handle *to_handle(T *obj)
{
	return reinterpret_cast<Handle *>(obj);
}

template <typename T, typename Handle> T *from_handle(Handle *h)
{
	return reinterpret_cast<T *>(h);
}

} // namespace srpt
