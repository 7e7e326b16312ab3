/* progname.h - the name the program was started as, for the messages of every layer that tell
 * the user a command to type (doctor's leftovers as much as the command line's usage) */
#ifndef UNPACKER_TARGET_PROGNAME_H
#define UNPACKER_TARGET_PROGNAME_H

/* argv[0] without its directory: "unpacker", "unpacker.exe", a self-extractor's own name;
 * "unpacker" before progname_set. */
const char *progname(void);
/* Take the name from argv0 (NULL or empty: keep "unpacker"); cli_parse calls it. */
void progname_set(const char *argv0);

#endif
