#ifndef SHOP_H
#define SHOP_H

/* parse_price parses "3.50" into cents; it returns -1 for garbage. */
long parse_price(const char *s);

/* cart_total is the sum of n[i] * price[i]. */
long cart_total(const int *n, const long *price, int len);

#endif
