// glibc's malloc settings that only C can reach, which the embedded server fixes at start (src/malloc-settings.ts).
// Built at install on Linux (native/build.mjs); elsewhere, or on a C library other than glibc, each call answers
// that it did nothing.
#define NAPI_VERSION 8
#include <node_api.h>
#include <stdint.h>

#if defined(__GLIBC__)
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define HAVE_GLIBC 1
#else
#define HAVE_GLIBC 0
#endif

/** mallopt(option, the call's one argument); throws unless that is a positive number below 2 GiB. */
static napi_value set_option(napi_env env, napi_callback_info info, int option, const char *usage) {
  size_t argc = 1;
  napi_value argv[1];
  napi_value result;
  int64_t value = 0;
  int done = 0;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 1 ||
      napi_get_value_int64(env, argv[0], &value) != napi_ok || value <= 0 || value > INT32_MAX) {
    napi_throw_range_error(env, NULL, usage);
    return NULL;
  }
#if HAVE_GLIBC
  done = mallopt(option, (int)value) == 1;
#else
  (void)option;
#endif
  napi_get_boolean(env, done, &result);
  return result;
}

#if !HAVE_GLIBC
#define M_MMAP_THRESHOLD 0
#define M_ARENA_MAX 0
#endif

/** fixMmapThreshold(bytes): mallopt(M_MMAP_THRESHOLD), which also ends glibc's dynamic raising of it. */
static napi_value fix_mmap_threshold(napi_env env, napi_callback_info info) {
  return set_option(env, info, M_MMAP_THRESHOLD, "fixMmapThreshold takes a positive number of bytes below 2 GiB");
}

/** fixArenaMax(arenas): mallopt(M_ARENA_MAX): threads that have no arena yet share these rather than make more. */
static napi_value fix_arena_max(napi_env env, napi_callback_info info) {
  return set_option(env, info, M_ARENA_MAX, "fixArenaMax takes a positive number of arenas");
}

/** mmappedBlocks(): blocks glibc's malloc holds by mmap (mallinfo2's hblks), or -1 where it cannot say. */
static napi_value mmapped_blocks(napi_env env, napi_callback_info info) {
  napi_value result;
  double blocks = -1;
  (void)info;
#if HAVE_GLIBC && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
  blocks = (double)mallinfo2().hblks;
#endif
  napi_create_double(env, blocks, &result);
  return result;
}

/** arenas(): the arenas glibc's malloc has made (the heaps malloc_info(3) lists), or -1 where it cannot say. */
static napi_value arenas(napi_env env, napi_callback_info info) {
  napi_value result;
  double count = -1;
  (void)info;
#if HAVE_GLIBC
  char *xml = NULL;
  size_t size = 0;
  FILE *out = open_memstream(&xml, &size);
  if (out != NULL) {
    int written = malloc_info(0, out);
    fclose(out);
    if (written == 0 && xml != NULL) {
      count = 0;
      for (const char *at = strstr(xml, "<heap nr="); at != NULL; at = strstr(at + 1, "<heap nr=")) count += 1;
    }
    free(xml);
  }
#endif
  napi_create_double(env, count, &result);
  return result;
}

static napi_value init(napi_env env, napi_value exports) {
  napi_property_descriptor properties[] = {
      {"fixMmapThreshold", NULL, fix_mmap_threshold, NULL, NULL, NULL, napi_enumerable, NULL},
      {"fixArenaMax", NULL, fix_arena_max, NULL, NULL, NULL, napi_enumerable, NULL},
      {"arenas", NULL, arenas, NULL, NULL, NULL, napi_enumerable, NULL},
      {"mmappedBlocks", NULL, mmapped_blocks, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  napi_define_properties(env, exports, sizeof properties / sizeof properties[0], properties);
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
