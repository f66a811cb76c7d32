build/supervisor/options.o: supervisor/options.c supervisor/supervisor.h \
 policy/policy.h
supervisor/supervisor.h:
policy/policy.h:
