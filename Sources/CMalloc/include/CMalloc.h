#ifndef C_MALLOC_H
#define C_MALLOC_H

/// mallopt(M_ARENA_MAX, arenas), which Swift's Glibc module does not export (it lives in <malloc.h>). Answers 1
/// when glibc took the setting, 0 otherwise (and on systems without glibc's malloc).
int c_malloc_limit_arenas(int arenas);

#endif
