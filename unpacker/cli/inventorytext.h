/* inventorytext.h - unpacker inventory's text: the inventory object (inventory.c) as lines for
 * a person, every fact of it from that one object, so the text and --json never disagree */
#ifndef UNPACKER_CLI_INVENTORYTEXT_H
#define UNPACKER_CLI_INVENTORYTEXT_H

struct json_t; /* jansson's json_t: the header names no library type */
struct product;

/* One prefix of the inventory (its "prefixes" entry) on stdout (log_out), product p's names
 * in it, paths under root ("" or --root) shown with it. */
void inventory_print_prefix(struct json_t *prefix, const struct product *p, const char *root);
/* The end: "nothing drifted", or every problem found. */
void inventory_print_problems(struct json_t *inv);

#endif
