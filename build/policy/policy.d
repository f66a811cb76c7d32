build/policy/policy.o: policy/policy.c policy/internal.h policy/policy.h
policy/internal.h:
policy/policy.h:
