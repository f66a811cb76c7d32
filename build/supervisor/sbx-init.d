build/supervisor/sbx-init.o: supervisor/sbx-init.c build/gen/filters.h
build/gen/filters.h:
