# gorc.prof: point the user leaf of every sample of a perf.data recorded
# with perf record -g (frame-pointer callchains) at PLT stubs of PROGRAM:
# sample K's first address after PERF_CONTEXT_USER becomes the address
# where the executable mapping of PROGRAM put file offset OFFSETS[K % N]
# (hex), so that every sample deterministically has its leaf in a stub.
#   perl perf-plt.pl PROGRAM IN OFFSET... >OUT
use strict;
local $/;
my ($program, $file, @offsets) = @ARGV;
@offsets = map { hex } @offsets;
open(my $in, '<:raw', $file) or die;
my $d = <$in>;
my ($doff, $dsize) = unpack('Q<Q<', substr($d, 40, 16));
my $user = pack('Q<', 0xfffffffffffffe00);   # PERF_CONTEXT_USER
# The records of one CPU's ring are written together, so a sample on one
# CPU can come before the MMAP2 of the program made on another: first
# the mapping (its pid too), then the samples.
# each_record(SUB): SUB(offset, type, size) for each record of the data.
sub each_record {
  my ($sub) = @_;
  for (my $at = $doff; $at < $doff + $dsize;) {
    my ($type, $misc, $size) = unpack('L<S<S<', substr($d, $at, 8));
    die "a record of size 0" unless $size;
    $sub->($at, $type, $size);
    $at += $size;
  }
}
my ($k, $pid, @map) = (0);
each_record(sub {
  my ($at, $type, $size) = @_;
  return unless $type == 10 && (unpack('L<', substr($d, $at + 64, 4)) & 4);
  my ($name) = unpack('Z*', substr($d, $at + 72, $size - 72));
  return unless $name =~ m{/\Q$program\E$};
  $pid = unpack('L<', substr($d, $at + 8, 4));
  @map = unpack('Q<Q<Q<', substr($d, $at + 16, 24));
});
die "no executable mapping of $program" unless @map;
# A sample (perf record's sample_type starts IP, TID) of the program's pid.
each_record(sub {
  my ($at, $type, $size) = @_;
  return unless $type == 9 && unpack('L<', substr($d, $at + 16, 4)) == $pid;
  my $rec = substr($d, $at, $size);
  for (my $i = 8; $i + 16 <= $size; $i += 8) {
    next unless substr($rec, $i, 8) eq $user;
    my $off = $offsets[$k++ % @offsets];
    die "offset not in the mapping" if $off < $map[2] || $off >= $map[2] + $map[1];
    substr($d, $at + $i + 8, 8) = pack('Q<', $map[0] + $off - $map[2]);
    last;
  }
});
die "no sample rewritten" unless $k;
print $d;
