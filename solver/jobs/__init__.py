"""The job runner: many searches run in parallel, checkpointed and resumable, with their
progress shown.

- :mod:`.runner`: :func:`~.runner.run_jobs`, the jobs and their results;
- :mod:`.workers`: the worker pools (local processes or a Dask cluster);
- :mod:`.checkpoint`: the checkpoint file a run resumes from;
- :mod:`.state`: the state file of any run that resumes (the checkpoint's, a match's, the
  puzzle generator's, the opening database build's): lock, checks, atomic writes;
- :mod:`.progress`: the job table and the status line on a terminal;
- :mod:`.jlpns`: job-level proof-number search, one proof spread over jobs on the same
  workers (a master proof tree whose leaves are df-pn jobs);
- :mod:`.jlpns_certificate`: one certificate of such a proof.

It runs the searches (:mod:`solver.search`) and is used by the applications
(:mod:`solver.app`); no search imports it.  Nothing is imported here.
"""
