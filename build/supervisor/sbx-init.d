build/supervisor/sbx-init.o: supervisor/sbx-init.c build/gen/filters.h \
 supervisor/forwarded.h
build/gen/filters.h:
supervisor/forwarded.h:
