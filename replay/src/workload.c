/* A workload's name, APP[@VARIANT][+LOAD...]: the one parser (panlab/replay.h). */
#include <string.h>

#include "panlab/replay.h"

/* Copies the part [s, s + n) into dst after checking its characters; 0 or -1 with err set. */
static int part(const char *name, const char *what, const char *s, size_t n, char *dst,
		struct pl_error *err)
{
	if (n == 0) {
		pl_error_set(err, "workload '%s': empty %s, expected APP[@VARIANT][+LOAD...]", name,
			     what);
		return -1;
	}
	if (n >= PL_WORKLOAD_PART_BYTES) {
		pl_error_set(err, "workload '%s': %s longer than %d characters", name, what,
			     PL_WORKLOAD_PART_BYTES - 1);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			 (c >= '0' && c <= '9') || c == '_' || c == '-' || (c == '.' && i > 0);

		if (!ok) {
			pl_error_set(err,
				     "workload '%s': %s has '%c', expected letters, digits, '_',"
				     " '-' or '.'",
				     name, what, c);
			return -1;
		}
	}
	memcpy(dst, s, n);
	dst[n] = '\0';
	return 0;
}

int pl_workload_name_parse(const char *name, struct pl_workload_name *out, struct pl_error *err)
{
	size_t app_n = strcspn(name, "@+");
	const char *p = name + app_n;

	memset(out, 0, sizeof(*out));
	if (part(name, "app", name, app_n, out->app, err) < 0)
		return -1;
	if (*p == '@') {
		size_t n = strcspn(p + 1, "@+");

		if (part(name, "variant", p + 1, n, out->variant, err) < 0)
			return -1;
		p += 1 + n;
		if (*p == '@') {
			pl_error_set(err, "workload '%s': a second '@', expected one variant",
				     name);
			return -1;
		}
	}
	while (*p == '+') {
		size_t n = strcspn(p + 1, "@+");

		if (out->nloads == PL_WORKLOAD_MAX_LOADS) {
			pl_error_set(err, "workload '%s': more than %d loads", name,
				     PL_WORKLOAD_MAX_LOADS);
			return -1;
		}
		if (part(name, "load", p + 1, n, out->loads[out->nloads++], err) < 0)
			return -1;
		p += 1 + n;
		if (*p == '@') {
			pl_error_set(err,
				     "workload '%s': '@' after a load, expected the variant"
				     " before the loads",
				     name);
			return -1;
		}
	}
	snprintf(out->expect, sizeof(out->expect), "%s%s%s", out->app, *out->variant ? "@" : "",
		 out->variant);
	return 0;
}
