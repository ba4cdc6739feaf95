#ifndef C_PROCESS_SPAWN_H
#define C_PROCESS_SPAWN_H

#include <spawn.h>

/// posix_spawn_file_actions_addclosefrom_np (glibc 2.34+), which Swift's Glibc module does not export: the child
/// closes every descriptor from `lowest` on.
int c_process_spawn_close_from(posix_spawn_file_actions_t *actions, int lowest);

#endif
