/* The rk part of `npukit demo`. */
int demo_rk(void) { return 0; }
