"""gpubench's report and track programs (reports/report.py, reports/track.py), by job: the records
and their schema, statistics, tables, figures, studies, the history, the regression detection and
the dashboard."""
