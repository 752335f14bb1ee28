# gen09's minitest runner: `ruby -Ilib -Itest gen09_minitest.rb [FILE...]`.
#
# Minitest has no machine-readable report without an extra gem, so this file loads the
# test files itself (the arguments, else every test/**/test_*.rb and test/**/*_test.rb),
# runs them with minitest's own autorun and writes JUnit XML to $GEN09_REPORT, read by
# gen09_reports.py (format "junit"). Each testcase has classname = the file that defines
# the test method (relative to the working folder), name = "Class#method" and a file
# attribute, so the id is "test/a_test.rb::Class#method". A test file that fails to load
# (a syntax error in the library it requires) is written as a <testsuite> holding an
# <error>: its tests are absent from the report, so none of them counts as passing, and
# the run exits 1.
# Results are written sorted by file, line and name, and the seed is fixed (SEED=1 unless
# given), so a run's order and ids repeat.
require "minitest"

module Gen09Minitest
  # Collects every result and writes the JUnit XML when the run ends.
  class Reporter < Minitest::AbstractReporter
    def initialize(path, load_errors)
      super()
      @path = path
      @load_errors = load_errors
      @results = []
    end

    def record(result)
      @results << result
    end

    def report
      rows = @results.map { |r| [Gen09Minitest.relative(r.source_location[0]), r.source_location[1].to_i, r] }
      rows.sort_by! { |file, line, r| [file, line, r.klass.to_s, r.name] }
      File.open(@path, "w") do |out|
        out << %(<?xml version="1.0" encoding="utf-8"?>\n<testsuites>\n)
        @load_errors.each do |file, error|
          message = Gen09Minitest.escape("#{error.class}: #{error.message}")
          out << %(  <testsuite name="#{Gen09Minitest.escape(file)}"><error message="#{message}">)
          out << Gen09Minitest.escape(Array(error.backtrace).first(8).join("\n")) << "</error></testsuite>\n"
        end
        rows.each { |file, _line, result| out << Gen09Minitest.testcase(file, result) }
        out << "</testsuites>\n"
      end
    end

    def passed?
      @load_errors.empty?
    end
  end

  def self.relative(path)
    path = path.to_s
    root = Dir.pwd + "/"
    path.start_with?(root) ? path[root.length..] : path
  end

  def self.escape(text)
    text.to_s.encode("UTF-8", invalid: :replace, undef: :replace)
        .gsub(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/, "")
        .gsub("&", "&amp;").gsub("<", "&lt;").gsub(">", "&gt;").gsub('"', "&quot;")
  end

  def self.testcase(file, result)
    name = escape("#{result.klass}##{result.name}")
    body = ""
    failure = result.failure
    if result.skipped?
      body = "<skipped/>"
    elsif failure
      tag = result.error? ? "error" : "failure"
      detail = escape(([failure.message] + Array(failure.backtrace).first(20)).join("\n"))
      body = %(<#{tag} message="#{escape(failure.message.lines.first(5).join)}">#{detail}</#{tag}>)
    end
    %(  <testcase classname="#{escape(file)}" name="#{name}" file="#{escape(file)}" ) +
      %(time="#{format("%.6f", result.time)}">#{body}</testcase>\n)
  end
end

load_errors = []
files = ARGV.empty? ? Dir.glob("test/**/{test_*,*_test}.rb").sort : ARGV.dup
ARGV.clear
ENV["SEED"] ||= "1"
Minitest.load_plugins unless ENV["MT_NO_PLUGINS"]
Minitest.extensions << "gen09"
Minitest.define_singleton_method(:plugin_gen09_init) do |_options|
  reporter << Gen09Minitest::Reporter.new(ENV.fetch("GEN09_REPORT", "gen09-minitest.xml"), load_errors)
end
files.each do |file|
  require File.expand_path(file)
rescue ScriptError, StandardError => e
  load_errors << [file, e]
  warn "gen09: #{file} did not load: #{e.class}: #{e.message}"
end
Minitest.autorun
