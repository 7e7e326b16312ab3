/* inventorytext.h - unpacker inventory's text: the inventory object (inventory.c) as lines for
 * a person, every fact of it from that one object, so the text and --json never disagree */
#ifndef UNPACKER_CLI_INVENTORYTEXT_H
#define UNPACKER_CLI_INVENTORYTEXT_H

struct json_t; /* jansson's json_t: the header names no library type */
struct product;

/* The inventory on stdout (log_out), product p's names in it. */
void inventory_print(struct json_t *inv, const struct product *p);

#endif
