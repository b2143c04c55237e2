/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Intrusive doubly linked list. An element embeds a ListNode per list it
 * can be on; the list never allocates and never owns its elements. It is
 * trivially destructible so that it may live in constinit globals.
 *
 *	struct Channel { ktl::ListNode node; ... };
 *	ktl::List<Channel, &Channel::node> channels;
 */
#pragma once

#include <ktl/assert.h>
#include <ktl/types.h>

namespace ktl {

struct ListNode {
	ListNode *prev = nullptr;
	ListNode *next = nullptr;

	bool linked() const { return next != nullptr; }
};

template <typename T, ListNode T::*Member> class List {
public:
	constexpr List() : head_{&head_, &head_} {}
	List(const List &) = delete;
	List &operator=(const List &) = delete;

	bool empty() const { return head_.next == &head_; }

	size_t size() const
	{
		size_t n = 0;
		for (const ListNode *p = head_.next; p != &head_; p = p->next)
			n++;
		return n;
	}

	void push_back(T *obj) { insert_before(&head_, node(obj)); }
	void push_front(T *obj) { insert_before(head_.next, node(obj)); }

	T *front() const { return empty() ? nullptr : owner(head_.next); }

	T *pop_front()
	{
		T *obj = front();
		if (obj)
			erase(obj);
		return obj;
	}

	void erase(T *obj)
	{
		ListNode *n = node(obj);
		if (KTL_WARN_ON(!n->linked()))
			return;
		n->prev->next = n->next;
		n->next->prev = n->prev;
		n->prev = n->next = nullptr;
	}

	static bool contains_node(const T *obj) { return (obj->*Member).linked(); }

	class Iterator {
	public:
		Iterator(ListNode *n) : n_(n), next_(n->next) {}
		T *operator*() const { return owner(n_); }
		/* Safe against erasing the current element. */
		Iterator &operator++()
		{
			n_ = next_;
			next_ = n_->next;
			return *this;
		}
		bool operator!=(const Iterator &o) const { return n_ != o.n_; }

	private:
		ListNode *n_;
		ListNode *next_;
	};

	Iterator begin() { return Iterator(head_.next); }
	Iterator end() { return Iterator(&head_); }

private:
	static ListNode *node(T *obj) { return &(obj->*Member); }

	static T *owner(const ListNode *n)
	{
		/* The offset of Member within T, computed without a T object. */
		const auto offset = reinterpret_cast<uintptr_t>(
			&(reinterpret_cast<T *>(alignof(T) * 64)->*Member)) - alignof(T) * 64;
		return reinterpret_cast<T *>(reinterpret_cast<uintptr_t>(n) - offset);
	}

	static void insert_before(ListNode *pos, ListNode *n)
	{
		KTL_WARN_ON(n->linked());
		n->next = pos;
		n->prev = pos->prev;
		pos->prev->next = n;
		pos->prev = n;
	}

	ListNode head_;
};

} // namespace ktl
