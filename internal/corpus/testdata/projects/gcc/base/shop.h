#ifndef SHOP_H
#define SHOP_H

long parse_price(const char *s);

/* report_total prints a total; use print_total instead. */
void report_total(long cents) __attribute__((deprecated("use print_total")));
void print_total(long cents);

#endif
