# gorc.prof: point the innermost kernel address of every sample of a
# perf.data recorded with perf record -g at ADDR (hex): the first
# address after PERF_CONTEXT_KERNEL in its callchain.
#   perl perf-kaddr.pl ADDR IN >OUT
use strict;
local $/;
my ($addr, $file) = @ARGV;
open(my $in, '<:raw', $file) or die;
my $d = <$in>;
my ($doff, $dsize) = unpack('Q<Q<', substr($d, 40, 16));
my $kernel = pack('Q<', 0xffffffffffffff80);   # PERF_CONTEXT_KERNEL
my $k = 0;
for (my $at = $doff; $at < $doff + $dsize;) {
  my ($type, $misc, $size) = unpack('L<S<S<', substr($d, $at, 8));
  die "a record of size 0" unless $size;
  if ($type == 9) {                             # PERF_RECORD_SAMPLE
    for (my $i = 8; $i + 16 <= $size; $i += 8) {
      next unless substr($d, $at + $i, 8) eq $kernel;
      substr($d, $at + $i + 8, 8) = pack('Q<', hex $addr);
      $k++;
      last;
    }
  }
  $at += $size;
}
die "no sample rewritten" unless $k;
print $d;
