/* SPDX-License-Identifier: GPL-2.0-only */
/* The few <utility>/<type_traits> pieces the core needs, freestanding. */
#pragma once

#include <ktl/types.h>

namespace ktl {

template <typename T> struct remove_reference { using type = T; };
template <typename T> struct remove_reference<T &> { using type = T; };
template <typename T> struct remove_reference<T &&> { using type = T; };
template <typename T> using remove_reference_t = typename remove_reference<T>::type;

template <typename T> constexpr remove_reference_t<T> &&move(T &&t) noexcept
{
	return static_cast<remove_reference_t<T> &&>(t);
}

template <typename T> constexpr T &&forward(remove_reference_t<T> &t) noexcept
{
	return static_cast<T &&>(t);
}

template <typename T> constexpr void swap(T &a, T &b) noexcept
{
	T tmp = move(a);
	a = move(b);
	b = move(tmp);
}

template <typename T> constexpr T exchange(T &obj, T new_value) noexcept
{
	T old = move(obj);
	obj = move(new_value);
	return old;
}

template <typename T> constexpr const T &min(const T &a, const T &b) { return b < a ? b : a; }
template <typename T> constexpr const T &max(const T &a, const T &b) { return a < b ? b : a; }

template <typename T, size_t N> constexpr size_t array_size(const T (&)[N]) { return N; }

/* Overflow-checked arithmetic: true when the result does not fit. */
template <typename T> [[nodiscard]] constexpr bool add_overflow(T a, T b, T *res)
{
	return __builtin_add_overflow(a, b, res);
}
template <typename T> [[nodiscard]] constexpr bool mul_overflow(T a, T b, T *res)
{
	return __builtin_mul_overflow(a, b, res);
}

constexpr size_t align_up(size_t v, size_t a) { return (v + a - 1) & ~(a - 1); }

template <typename T> struct is_trivially_destructible {
	static constexpr bool value = __has_trivial_destructor(T);
};

} // namespace ktl
