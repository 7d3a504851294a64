/* The kt part of `npukit demo`. */
int demo_kt(void) { return 0; }
