build/gen-filters: supervisor/gen-filters.c
