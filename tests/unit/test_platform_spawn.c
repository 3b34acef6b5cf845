/* The readiness hand-shake: a child that signals, one that dies first, one that cannot exec. */
#include <CUnit/CUnit.h>
#include <string.h>
#include <sys/wait.h>

#include "panlab/spawn.h"
#include "test_platform.h"
#include "panlab/error.h"

static void test_ready_child(void)
{
	struct pl_error err = { "" };
	uint64_t ready_ns = 0;
	/* The child writes its ready byte to fd 3, named by PANLAB_READY_FD. */
	pid_t pid = pl_spawn_ready("/bin/sh",
				   (char *[]){ "sh", "-c", "[ \"$PANLAB_READY_FD\" = 3 ] && printf R >&3", NULL },
				   &ready_ns, &err);
	CU_ASSERT_FATAL(pid > 0);
	CU_ASSERT(ready_ns > 0);
	int status;
	CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
	CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static void test_child_dies_first(void)
{
	struct pl_error err = { "" };
	CU_ASSERT_EQUAL(pl_spawn_ready("/bin/sh", (char *[]){ "sh", "-c", "exit 3", NULL }, NULL, &err), -1);
	CU_ASSERT_STRING_EQUAL(err.msg, "/bin/sh exited before it was ready (exit status 3)");
	CU_ASSERT_EQUAL(pl_spawn_ready("/nonexistent/prog", (char *[]){ "prog", NULL }, NULL, &err), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "(exit status 127)"));
}

static void test_sibling_path(void)
{
	char path[4096];
	CU_ASSERT_EQUAL(pl_sibling_path("svc-x", path, sizeof(path)), 0);
	/* The test binary's own directory, then the name. */
	size_t n = strlen(path);
	CU_ASSERT(n > 6 && strcmp(path + n - 6, "/svc-x") == 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(path, "/workloads/test/"));
	char tiny[4];
	CU_ASSERT_NOT_EQUAL(pl_sibling_path("svc-x", tiny, sizeof(tiny)), 0);
}

void add_spawn_suite(void)
{
	CU_pSuite s = CU_add_suite("spawn", NULL, NULL);
	CU_add_test(s, "child signals ready", test_ready_child);
	CU_add_test(s, "child dies or cannot exec", test_child_dies_first);
	CU_add_test(s, "sibling path", test_sibling_path);
}
