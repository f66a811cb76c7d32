build/supervisor/main.o: supervisor/main.c supervisor/supervisor.h \
 policy/policy.h
supervisor/supervisor.h:
policy/policy.h:
