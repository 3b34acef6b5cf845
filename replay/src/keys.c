/* The keys a script may press. Codes are the Linux input ABI (include/uapi/linux/
 * input-event-codes.h), written out so the parser builds on hosts without Linux headers; a unit
 * test checks each against the KEY_* macro. The set covers Android's navigation keys and what
 * text entry needs. Digit keys carry the KEY_ prefix in their names because a bare
 * number in a script is a key code. */
#include "panlab/replay.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static const struct key {
	const char *name;
	uint16_t code;
} keys[] = {
	{ "ESC", 1 },	     { "KEY_1", 2 },	  { "KEY_2", 3 },	 { "KEY_3", 4 },
	{ "KEY_4", 5 },	     { "KEY_5", 6 },	  { "KEY_6", 7 },	 { "KEY_7", 8 },
	{ "KEY_8", 9 },	     { "KEY_9", 10 },	  { "KEY_0", 11 },	 { "MINUS", 12 },
	{ "EQUAL", 13 },     { "BACKSPACE", 14 }, { "TAB", 15 },	 { "Q", 16 },
	{ "W", 17 },	     { "E", 18 },	  { "R", 19 },		 { "T", 20 },
	{ "Y", 21 },	     { "U", 22 },	  { "I", 23 },		 { "O", 24 },
	{ "P", 25 },	     { "LEFTBRACE", 26 }, { "RIGHTBRACE", 27 },	 { "ENTER", 28 },
	{ "A", 30 },	     { "S", 31 },	  { "D", 32 },		 { "F", 33 },
	{ "G", 34 },	     { "H", 35 },	  { "J", 36 },		 { "K", 37 },
	{ "L", 38 },	     { "SEMICOLON", 39 }, { "APOSTROPHE", 40 },	 { "GRAVE", 41 },
	{ "LEFTSHIFT", 42 }, { "BACKSLASH", 43 }, { "Z", 44 },		 { "X", 45 },
	{ "C", 46 },	     { "V", 47 },	  { "B", 48 },		 { "N", 49 },
	{ "M", 50 },	     { "COMMA", 51 },	  { "DOT", 52 },	 { "SLASH", 53 },
	{ "SPACE", 57 },     { "HOME", 102 },	  { "UP", 103 },	 { "PAGEUP", 104 },
	{ "LEFT", 105 },     { "RIGHT", 106 },	  { "END", 107 },	 { "DOWN", 108 },
	{ "PAGEDOWN", 109 }, { "DELETE", 111 },	  { "VOLUMEDOWN", 114 }, { "VOLUMEUP", 115 },
	{ "POWER", 116 },    { "MENU", 139 },	  { "BACK", 158 },	 { "HOMEPAGE", 172 },
	{ "CAMERA", 212 },   { "SEARCH", 217 },	  { "LEFTCTRL", 29 },	 { "LEFTALT", 56 },
};

/* Modifiers in the order a script's press sends them (input-event-codes.h's left keys). */
static const struct modifier {
	uint8_t bit;
	uint16_t code;
	const char *name;
} mods[PL_MOD_COUNT] = {
	{ PL_MOD_CTRL, 29, "CTRL" },
	{ PL_MOD_SHIFT, 42, "SHIFT" },
	{ PL_MOD_ALT, 56, "ALT" },
};

#define NKEYS (sizeof keys / sizeof keys[0])

size_t pl_key_count(void)
{
	return NKEYS;
}

uint16_t pl_key_code_at(size_t index)
{
	return keys[index].code;
}

/* A name matches an entry as is or with "KEY_" in front. */
static bool name_matches(const char *entry, const char *name, size_t len)
{
	size_t n = strlen(entry);
	if (len == n + 4 && strncasecmp(name, "KEY_", 4) == 0) {
		name += 4;
		len -= 4;
	}
	return len == n && strncasecmp(entry, name, n) == 0;
}

int pl_key_code(const char *name, size_t name_len)
{
	for (size_t i = 0; i < NKEYS; i++)
		if (name_matches(keys[i].name, name, name_len))
			return keys[i].code;
	return -1;
}

const char *pl_key_name(uint16_t code)
{
	for (size_t i = 0; i < NKEYS; i++)
		if (keys[i].code == code)
			return keys[i].name;
	return NULL;
}

uint8_t pl_mod_bit(size_t i)
{
	return mods[i].bit;
}

uint16_t pl_mod_code(size_t i)
{
	return mods[i].code;
}

const char *pl_mod_name(size_t i)
{
	return mods[i].name;
}

int pl_key_format(char *buf, size_t size, uint16_t code, uint8_t held)
{
	int n = 0;
	for (size_t i = 0; i < PL_MOD_COUNT; i++)
		if (held & mods[i].bit) {
			int k = snprintf(buf + n, (size_t)n < size ? size - (size_t)n : 0, "%s+",
					 mods[i].name);
			if (k < 0)
				return k;
			n += k;
		}
	int k = snprintf(buf + ((size_t)n < size ? (size_t)n : size),
			 (size_t)n < size ? size - (size_t)n : 0, "%s", pl_key_name(code));
	return k < 0 ? k : n + k;
}
