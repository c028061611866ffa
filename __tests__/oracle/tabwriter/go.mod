module tazuna-action/oracle/tabwriter

go 1.24
