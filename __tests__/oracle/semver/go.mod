module github.com/tazuna-action/oracle/semver

go 1.26

require github.com/Masterminds/semver/v3 v3.5.0
