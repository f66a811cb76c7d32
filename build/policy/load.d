build/policy/load.o: policy/load.c policy/internal.h policy/policy.h
policy/internal.h:
policy/policy.h:
