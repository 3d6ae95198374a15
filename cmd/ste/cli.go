package main

import "github.com/ste-utility/ste/cli"

// The command-line conventions (package cli) under the names the commands
// use.
type (
	command    = cli.Command
	usageError = cli.UsageError
	exitCode   = cli.ExitCode
)

var (
	flags                   = cli.Flags
	envOr                   = cli.EnvOr
	envBool                 = cli.EnvBool
	kafkaFlags              = cli.KafkaFlags
	kafkaSecurityFlags      = cli.KafkaSecurityFlags
	kafkaSecurityFlagsNamed = cli.KafkaSecurityFlagsNamed
	reachable               = cli.Reachable
	topicFlags              = cli.TopicFlags
	layoutFlags             = cli.LayoutFlags
	addRetentionFlag        = cli.AddRetention
	isTerminal              = cli.IsTerminal
	fractionBar             = cli.FractionBar
	steHome                 = cli.Home
	namespaceFlag           = cli.Namespace
	validNamespace          = cli.ValidNamespace
	secretFlag              = cli.SecretFlag
	utilitySigner           = cli.UtilitySigner
	fileExists              = cli.FileExists
	addProcessFlags         = cli.AddProcessFlags
	clickhouseFlag          = cli.ClickHouse
	dialer                  = cli.Dialer
	lagProgress             = cli.LagProgress
	admin                   = cli.Admin
	sendProgress            = cli.SendProgress
	sampleLine              = cli.SampleLine
)
