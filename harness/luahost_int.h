/*
 * luahost_int.h - what luahost.c shares with luapat.c and the harness's
 * own host functions; not for scripts' callers.
 */
#ifndef TD_LUAHOST_INT_H
#define TD_LUAHOST_INT_H

#include <lua.h>

/*
 * Charges steps of work done in C for the running script (a pattern
 * matcher's steps) to its instruction budget and checks its wall-clock
 * deadline and a stop (reaper.h). Raises a Lua error when one is spent:
 * call it only where a Lua error may be raised.
 */
void td_lua_charge(lua_State *L, long steps);

/* Replaces string.find, match, gmatch and gsub with the budgeted ones (luapat.c). */
void td_luapat_open(lua_State *L);

#endif
