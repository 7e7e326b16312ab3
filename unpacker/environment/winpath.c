/* winpath.c - the PATH value as a list of entries separated by ';' (a ';' inside double
 * quotes belongs to the entry, as cmd and the loader read it); "" is the empty list, so
 * adding to it and removing again gives "" back. */
#include "unpacker/environment/winpath.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The length of the entry that starts at s: up to the next ';' outside quotes, or the end. */
static size_t entry_length(const char *s)
{
	size_t n = 0;
	int quoted = 0;
	for (; s[n] && (quoted || s[n] != ';'); n++)
		if (s[n] == '"')
			quoted = !quoted;
	return n;
}

static char fold(char c)
{
	if (c >= 'A' && c <= 'Z')
		return (char)(c - 'A' + 'a');
	return c == '/' ? '\\' : c;
}

/* The entry without its quotes and trailing separators: [*start, *start + *len). */
static void entry_core(const char *s, size_t len, const char **start, size_t *core)
{
	size_t i = 0, out = 0;
	while (i < len && (s[i] == '"' || s[i] == ' '))
		i++;
	out = len;
	while (out > i && (s[out - 1] == '"' || s[out - 1] == ' '))
		out--;
	/* "C:\" keeps its separator: the root is not "C:" (the current directory on C:). */
	while (out > i + 1 && (s[out - 1] == '\\' || s[out - 1] == '/') && s[out - 2] != ':')
		out--;
	*start = s + i;
	*core = out - i;
}

int winpath_same_dir(const char *a, size_t alen, const char *b, size_t blen)
{
	const char *ca, *cb;
	size_t na, nb;
	entry_core(a, alen, &ca, &na);
	entry_core(b, blen, &cb, &nb);
	if (na == 0 || na != nb)
		return 0;
	for (size_t i = 0; i < na; i++)
		if (fold(ca[i]) != fold(cb[i]))
			return 0;
	return 1;
}

static int usable_entry(const char *ours)
{
	const char *core;
	size_t n;
	if (!ours || strchr(ours, ';') || strchr(ours, '"'))
		return 0;
	entry_core(ours, strlen(ours), &core, &n);
	return n > 0;
}

static int is_listed(const char *s, size_t len, const char *ours, const char *const *previous,
		     size_t nprevious)
{
	if (winpath_same_dir(s, len, ours, strlen(ours)))
		return 1;
	for (size_t i = 0; i < nprevious; i++)
		if (previous[i] && winpath_same_dir(s, len, previous[i], strlen(previous[i])))
			return 1;
	return 0;
}

/* Append to out (which has room) the entries of value not listed, each after a ';' when
 * something came before; returns the new end. */
static char *copy_others(char *out, int something_before, const char *value, const char *ours,
			 const char *const *previous, size_t nprevious)
{
	const char *s = value;
	if (!*s)
		return out;
	for (;;) {
		size_t len = entry_length(s);
		if (!is_listed(s, len, ours, previous, nprevious)) {
			if (something_before)
				*out++ = ';';
			memcpy(out, s, len);
			out += len;
			something_before = 1;
		}
		if (!s[len])
			break;
		s += len + 1;
	}
	*out = '\0';
	return out;
}

char *winpath_add(const char *value, const char *ours, const char *const *previous,
		  size_t nprevious)
{
	if (!value || !usable_entry(ours)) {
		errno = EINVAL;
		return NULL;
	}
	size_t olen = strlen(ours);
	char *out = malloc(olen + 1 + strlen(value) + 1);
	if (!out) {
		errno = ENOMEM;
		return NULL;
	}
	memcpy(out, ours, olen);
	out[olen] = '\0';
	copy_others(out + olen, 1, value, ours, previous, nprevious);
	return out;
}

char *winpath_remove(const char *value, const char *ours)
{
	if (!value || !usable_entry(ours)) {
		errno = EINVAL;
		return NULL;
	}
	char *out = malloc(strlen(value) + 1);
	if (!out) {
		errno = ENOMEM;
		return NULL;
	}
	out[0] = '\0';
	/* The empty list has no entries; "ours" alone becomes it again. Any other value keeps
	 * its count of entries less ours, so ";" (two empty entries) stays ";". */
	copy_others(out, 0, value, ours, NULL, 0);
	return out;
}

int winpath_contains(const char *value, const char *ours)
{
	if (!value || !*value || !usable_entry(ours))
		return 0;
	for (const char *s = value;;) {
		size_t len = entry_length(s);
		if (winpath_same_dir(s, len, ours, strlen(ours)))
			return 1;
		if (!s[len])
			return 0;
		s += len + 1;
	}
}
