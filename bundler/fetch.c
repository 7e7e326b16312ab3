/* fetch.c - libcurl downloads with resume, retries, a cache and strict checksums */
#include "bundler/fetch.h"

#include <curl/curl.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/interrupt.h"
#include "common/io.h"
#include "common/log.h"
#include "common/progress.h"
#include "common/sha256.h"

void fetch_global_init(void)
{
	curl_global_init(CURL_GLOBAL_DEFAULT);
}

void fetch_global_cleanup(void)
{
	curl_global_cleanup();
}

const char *fetch_library_version(void)
{
	return curl_version_info(CURLVERSION_NOW)->version;
}

struct mem_sink {
	char *buf;
	size_t len;
	size_t max;
};

static size_t mem_write(char *data, size_t size, size_t n, void *ctx)
{
	struct mem_sink *s = ctx;
	size_t len = size * n;
	if (len > s->max - s->len)
		return 0; /* endless data: stop */
	s->buf = xrealloc(s->buf, s->len + len + 1);
	memcpy(s->buf + s->len, data, len);
	s->len += len;
	s->buf[s->len] = '\0';
	return len;
}

/* Settings every transfer shares. libcurl reads http_proxy, https_proxy and no_proxy itself. */
static CURL *easy_new(const char *url, char *errbuf)
{
	CURL *c = curl_easy_init();
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_FAILONERROR, 1L);
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
	curl_easy_setopt(c, CURLOPT_MAXREDIRS, 5L);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 30L);
	curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
	curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, 60L);
	curl_easy_setopt(c, CURLOPT_USERAGENT, "cuferry-bundler/1");
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	errbuf[0] = '\0';
	return c;
}

/* A name that does not resolve does not start resolving a second later: an offline host
 * (no DNS at all, or a mirror's name mistyped) is told at once, not after the retries. */
static int retry_is_pointless(CURLcode res)
{
	return res == CURLE_COULDNT_RESOLVE_HOST || res == CURLE_COULDNT_RESOLVE_PROXY;
}

/* --offline: the network is never touched; a URL that would need it is refused untried. */
static int refuse_offline(const char *url, const struct fetch_options *o, struct cf_err *e)
{
	if (!o->offline || strncmp(url, "file://", 7) == 0)
		return CF_OK;
	return cf_fail(e, CF_SOURCE, "%s: not fetched (--offline)", url);
}

static void backoff(int attempt)
{
	unsigned delay = attempt < 4 ? 1u << attempt : 8;
#ifdef CUFERRY_TEST_SEAMS
	/* Test build only (build/bundler-test-seams): retries without the wait, for the tests of
	 * unreachable and broken mirrors. */
	if (getenv("CUFERRY_FETCH_NO_BACKOFF"))
		return;
#endif
	sleep(delay);
}

/* libcurl reads a file:// directory as nothing at all; a mirror kept in a local directory
 * (an offline bundling host, a test) lists its entries the way a web server's index does. */
static int local_listing(const char *url, size_t max, char **out, size_t *len)
{
	const char *path = url + strlen("file://");
	DIR *d = opendir(path);
	if (!d)
		return -1;
	struct mem_sink sink = { xstrdup(""), 0, max };
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		char *line = xasprintf("%s\n", de->d_name);
		size_t n = strlen(line);
		int fits = mem_write(line, 1, n, &sink) == n;
		free(line);
		if (!fits)
			break;
	}
	closedir(d);
	*out = sink.buf;
	*len = sink.len;
	return 0;
}

int fetch_text(const char *url, size_t max, const struct fetch_options *o, char **out,
	       size_t *len, struct cf_err *e)
{
	char errbuf[CURL_ERROR_SIZE] = "";
	CURLcode res = CURLE_OK;
	long code = 0;
	int local = strncmp(url, "file://", 7) == 0;
	if (refuse_offline(url, o, e) != CF_OK)
		return e->code;
	if (local && url[strlen(url) - 1] == '/' && local_listing(url, max, out, len) == 0)
		return CF_OK;
	int retries = local ? 0 : o->retries; /* a local file does not come back by waiting */
	for (int attempt = 0; attempt <= retries; attempt++) {
		struct mem_sink sink = { NULL, 0, max };
		CURL *c = easy_new(url, errbuf);
		curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, mem_write);
		curl_easy_setopt(c, CURLOPT_WRITEDATA, &sink);
		res = curl_easy_perform(c);
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
		curl_easy_cleanup(c);
		if (res == CURLE_OK) {
			*out = sink.buf ? sink.buf : xstrdup("");
			*len = sink.len;
			return CF_OK;
		}
		free(sink.buf);
		/* A 404 is an answer, not a hiccup. */
		if ((code >= 400 && code < 500) || retry_is_pointless(res))
			break;
		if (attempt < retries) {
			log_msg(LOG_WARN, "%s: %s; retrying", url, errbuf[0] ? errbuf : curl_easy_strerror(res));
			backoff(attempt);
		}
	}
	return cf_fail(e, CF_SOURCE, "%s: %s", url, errbuf[0] ? errbuf : curl_easy_strerror(res));
}

struct file_sink {
	int fd;
	uint64_t have;     /* bytes in the .part file */
	uint64_t expected;
	CURL *curl;
	int checked_code;
	struct progress progress;
};

static size_t file_write(char *data, size_t size, size_t n, void *ctx)
{
	struct file_sink *s = ctx;
	size_t len = size * n;
	if (interrupt_pending())
		return 0; /* SIGINT/TERM/HUP: stop the transfer, the caller cleans up */
	if (!s->checked_code) {
		long code = 0;
		s->checked_code = 1;
		curl_easy_getinfo(s->curl, CURLINFO_RESPONSE_CODE, &code);
		/* The server ignored our Range: start the file over rather than append. */
		if (s->have > 0 && code == 200) {
			if (ftruncate(s->fd, 0) != 0 || lseek(s->fd, 0, SEEK_SET) != 0)
				return 0;
			s->have = 0;
		}
	}
	if (len > s->expected - s->have)
		return 0; /* more than NVIDIA says the file holds */
	if (io_write_all(s->fd, data, len) != 0)
		return 0;
	s->have += len;
	progress_set(&s->progress, s->have);
	return len;
}

static int file_matches(const char *path, uint64_t size, const uint8_t sha256[32])
{
	uint8_t d[32];
	uint64_t got;
	return sha256_file(path, d, &got) == 0 && got == size && digest_equal(d, sha256, 32);
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* One transfer, resuming from what .part holds. */
static CURLcode transfer(const char *url, struct file_sink *s, char *errbuf)
{
	CURL *c = easy_new(url, errbuf);
	s->curl = c;
	s->checked_code = 0;
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, file_write);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, s);
	if (s->have > 0)
		curl_easy_setopt(c, CURLOPT_RESUME_FROM_LARGE, (curl_off_t)s->have);
	CURLcode res = curl_easy_perform(c);
	curl_easy_cleanup(c);
	return res;
}

static int fetch_file_once(const char *url, const char *dest, uint64_t size,
			   const uint8_t sha256[32], const struct fetch_options *o, int may_restart,
			   struct cf_err *e)
{
	if (file_matches(dest, size, sha256)) {
		log_msg(LOG_INFO, "using cached %s", base_name(dest));
		return CF_OK;
	}
	if (refuse_offline(url, o, e) != CF_OK)
		return e->code;
	char *part = xasprintf("%s.part", dest), errbuf[CURL_ERROR_SIZE];
	int rc = CF_OK, resumed = 0;
	char *dir = xstrdup(dest);
	*strrchr(dir, '/') = '\0';
	io_mkdirs(dir, 0755);
	free(dir);
	struct file_sink s = { .expected = size };
	s.fd = open(part, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (s.fd < 0) {
		rc = cf_fail(e, cf_write_status(errno), "%s: %s", part, strerror(errno));
		goto out;
	}
	struct stat st;
	fstat(s.fd, &st);
	s.have = (uint64_t)st.st_size > size ? 0 : (uint64_t)st.st_size;
	if (s.have == 0 && ftruncate(s.fd, 0) != 0) {
		rc = cf_fail(e, cf_write_status(errno), "%s: %s", part, strerror(errno));
		goto out;
	}
	resumed = s.have > 0;
	if (s.have)
		log_msg(LOG_INFO, "resuming %s at %llu bytes", base_name(dest), (unsigned long long)s.have);
	progress_start(&s.progress, base_name(dest), size, o->progress);
	for (int attempt = 0;; attempt++) {
		CURLcode res = s.have < size ? transfer(url, &s, errbuf) : CURLE_OK;
		if (res == CURLE_OK && s.have == size)
			break;
		if (interrupt_pending()) {
			rc = interrupt_check(e);
			break;
		}
		if (attempt >= o->retries || retry_is_pointless(res)) {
			rc = cf_fail(e, CF_SOURCE, "%s: %s (%llu of %llu bytes after %d attempts)", url,
				     res != CURLE_OK ? (errbuf[0] ? errbuf : curl_easy_strerror(res))
						     : "short download",
				     (unsigned long long)s.have, (unsigned long long)size, attempt + 1);
			break;
		}
		resumed = s.have > 0;
		if (s.have > 0)
			log_msg(LOG_WARN, "%s: %s; resuming at %llu bytes", base_name(dest),
				errbuf[0] ? errbuf : "connection ended early", (unsigned long long)s.have);
		else
			log_msg(LOG_WARN, "%s: %s; retrying", base_name(dest),
				errbuf[0] ? errbuf : "connection ended early");
		backoff(attempt);
	}
	progress_end(&s.progress);
	close(s.fd);
	s.fd = -1;
	if (rc == CF_OK && !file_matches(part, size, sha256)) {
		unlink(part);
		if (!(resumed && may_restart)) {
			rc = cf_fail(e, CF_SOURCE, "%s: SHA-256 does not match NVIDIA's manifest; "
				     "download discarded", base_name(dest));
			goto out;
		}
		/* A resumed download can splice two versions of a file: fetch it once, whole. */
		log_msg(LOG_WARN, "%s: checksum mismatch, downloading once more from the start",
			base_name(dest));
		rc = fetch_file_once(url, dest, size, sha256, o, 0, e);
		goto out;
	}
	if (rc == CF_OK && rename(part, dest) != 0)
		rc = cf_fail(e, cf_write_status(errno), "%s: %s", dest, strerror(errno));
out:
	if (s.fd >= 0)
		close(s.fd);
	/* Nothing arrived: no empty .part for the next run to "resume". */
	struct stat left;
	if (rc != CF_OK && lstat(part, &left) == 0 && S_ISREG(left.st_mode) && left.st_size == 0)
		unlink(part);
	free(part);
	return rc;
}

int fetch_file(const char *url, const char *dest, uint64_t size, const uint8_t sha256[32],
	       const struct fetch_options *o, struct cf_err *e)
{
	return fetch_file_once(url, dest, size, sha256, o, 1, e);
}
