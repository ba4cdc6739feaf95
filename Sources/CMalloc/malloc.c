#include "CMalloc.h"

#include <stdlib.h> // defines __GLIBC__ (through <features.h>) on glibc systems

#if defined(__GLIBC__)
#include <malloc.h>

int c_malloc_limit_arenas(int arenas) {
    return mallopt(M_ARENA_MAX, arenas);
}
#else
int c_malloc_limit_arenas(int arenas) {
    (void)arenas;
    return 0;
}
#endif
